#!/bin/sh
# cardid adapter around toy-reader.sh (spec/adapter-contract.md), per-case mode only.
#
#   cardid run --impl "sh /abs/path/examples/shell/adapter.sh" --role reader
#
# Exit status: 0 answered (the result on standard output), 1 rejected (with
# {"rejected": "reason"} on standard output, C-2), 2 anything else (a crash).
# Standard output carries the one JSON answer only; diagnostics go to standard error.
set -u

here=$(cd "$(dirname "$0")" && pwd) || exit 2

# The parser: card table text on stdin; exit 0 with entries, 1 for invalid text.
parse() {
    sh "$here/toy-reader.sh"    # <- your parser's command goes here
}

# 1. Mode. The runner first tries persistent mode: its first line is then
#    {"cmd":"start","protocol":1}, and it waits for the answer, so read one line
#    only (never to end of input here). Declining makes the runner fall back to
#    one process per case.
IFS= read -r first || [ -n "$first" ] || { echo "adapter.sh: empty input" >&2; exit 2; }
case $first in
*'"cmd"'*)  # only the start line has a "cmd" key (in a string it would be \"cmd\")
    if printf '%s\n' "$first" | jq -e 'type == "object" and .cmd == "start"' >/dev/null 2>&1; then
        echo '{"rejected": "per-case only"}'
        exit 0
    fi ;;
esac

# 2. Per-case mode (C-1): the request is that first line plus the rest of the input.
#    Its text goes to a file, never through a shell variable (which cannot hold every
#    byte); a request that is not a reader request is no card table to reject: a failure.
text=$(mktemp) || exit 2
errors=$(mktemp) || exit 2
trap 'rm -f "$text" "$errors"' EXIT
if ! { printf '%s\n' "$first"; cat; } |
    jq -j 'if .role == "reader" and (.text | type) == "string" then .text else error("x") end' \
        >"$text" 2>/dev/null; then
    echo "adapter.sh: not a reader request (this adapter serves the reader role only)" >&2
    exit 2
fi

# 3. Run the parser on the text; its complaints go to a file.
entries=$(parse <"$text" 2>"$errors")
status=$?
cat "$errors" >&2    # kept by the runner in the report's stderr tail

# 4. Translate the parser's answer into the contract's.
case $status in
0)  # ID<TAB>NAME<TAB>OWNER lines -> the reader result (schema/reader-output.schema.json)
    printf '%s' "$entries" | jq -R -s -c '{card_table: [
        split("\n")[] | select(. != "") | split("\t")
        | {id: .[0], name: .[1], printing: null, source_ids: [], owner: .[2], kind: "card"}
    ]}' || exit 2
    exit 0 ;;
1)  # invalid text: exit status 1 AND the rejection object (C-2)
    jq -R -s -c '{rejected: (rtrimstr("\n") | if . == "" then "invalid card table text" else . end)}' <"$errors" || exit 2
    exit 1 ;;
*)  echo "adapter.sh: the parser failed with exit status $status" >&2
    exit 2 ;;
esac
