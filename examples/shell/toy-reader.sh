#!/bin/sh
# toy-reader.sh: a deliberately tiny card table "parser", standing in for yours.
#
# It understands one shape of line only:
#
#     #ID "NAME" owner=PLAYER
#
# (no "?" name, no escapes in the name, no printing, no source IDs, no quoted
# owner, no token/copy marker, LF line ends only). Empty lines are skipped.
#
# Input:  card table text on standard input.
# Output: one line per entry, ID<TAB>NAME<TAB>OWNER, exit status 0;
#         or a message on standard error and exit status 1 at the first line it
#         does not understand, or at a second line for an ID already used.
#
# Byte-wise (LC_ALL=C): a name may hold any byte but '"', '\' and ASCII
# controls, so non-ASCII names pass through untouched.

LC_ALL=C exec awk '
/^$/ { next }
/^#[A-Za-z0-9._-]+ "[^"\\[:cntrl:]]+" owner=[A-Za-z0-9._-]+$/ {
    space = index($0, " ")
    id = substr($0, 2, space - 2)
    rest = substr($0, space + 2)             # after the opening quote
    close_quote = index(rest, "\"")
    name = substr(rest, 1, close_quote - 1)
    owner = substr(rest, close_quote + 8)    # after "\" owner="
    if (id in seen) {
        print "line " NR ": instance ID " id " is used by an earlier line" > "/dev/stderr"
        exit 1
    }
    seen[id] = 1
    print id "\t" name "\t" owner
    next
}
{
    print "line " NR ": the toy reader understands only #ID \"NAME\" owner=PLAYER" > "/dev/stderr"
    exit 1
}
'
