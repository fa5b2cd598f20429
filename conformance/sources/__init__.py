"""Real source logs: rendering a writer request as the log a real client writes (Arena's
`Player.log`, MTGO's game-log text), importing such a log as a writer request, and which cases a
source can express at all (its profile). Pure: text in, data out; nothing here runs a program."""
