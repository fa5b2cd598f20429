"""Process handling: starting an implementation, talking to it, and ending all it started.

    command     an implementation command split into words, checked before it starts, and the
                environment it gets
    errors      what goes wrong before it runs (BadCommand, CannotStart and its kinds)
    transport   `Process`: one started implementation, and the poll loop over its pipes
    reads       what a read gives (Line, Ended, TimedOut, TooLong, Stopped, Output), the limits
                of what is kept, and `store_bytes`
    idle        telling an implementation that waits for input from one still at work
    marks       the run's mark on every process it starts, finding and killing what carries
                it, and the temporary folders; watchdog.py (a script) does it if the runner dies
    reaper      the runner as a child subreaper (Linux): its implementations' orphans become its
                children, where marks finds them, and are reaped here
    stop        the run's stop flag, and the signal handling that sets it
    timing      the waits that are not a run's time limits (`Timing`: quiet time, read after
                exit), one value passed down rather than constants to change

It imports nothing of `cardid_conformance` (tests/test_boundaries.py), and says nothing to a
person: its errors carry the facts, and the runner words them (runner/starting.py).
"""
