# lib.sh - helpers shared by the command-line tests (sourced).
# expect NAME WANT_RC CMD... runs CMD, output in $tmp/out, and counts a
# failure in $fails when the exit status differs; grep_out NAME REGEX checks
# that output.
expect() {
    local name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>&1
    local rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL $name: exit $rc, want $want"; sed 's/^/  | /' "$tmp/out"; fails=$((fails + 1))
    fi
}

grep_out() {
    if ! grep -Eq -- "$2" "$tmp/out"; then
        echo "FAIL $1: output lacks /$2/"; sed 's/^/  | /' "$tmp/out"; fails=$((fails + 1))
    fi
}
