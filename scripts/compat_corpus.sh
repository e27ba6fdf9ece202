#!/usr/bin/env bash
# The compat corpus: published MCP servers (PyPI) run as published and unchanged on mcpkit.
#
# Each server of tests/compat/corpus/servers.tsv is installed, pinned, into its own virtualenv
# .cache/compat-corpus/NAME together with this checkout's mcpkit (editable): the servers of
# the CI part exactly as their lock says (locks/corpus/NAME.txt, with hashes, written by
# scripts/lock.sh), so CI runs the same versions next year; then
# tests/compat/corpus/compare.py starts it twice, as published (its console script) and on
# mcpkit (`python -m mcpkit.compat` with the same command line), drives both with the
# official Python client (.cache/peers/py, scripts/peers.sh) through
# tests/compat/corpus/scripts/NAME.json (default: list everything) and compares what the
# client saw, normalising only the SDK's version string and timestamps.
#
#   scripts/compat_corpus.sh            # every server
#   scripts/compat_corpus.sh --ci       # the representative part ("yes" in the last column)
#   scripts/compat_corpus.sh NAME ...   # these servers
#
# Downloads go to a cache outside the clone (PIP_CACHE_DIR, default ~/.cache/mcpkit-corpus-pip);
# installs run CORPUS_JOBS at a time (default 2); a virtualenv is only reinstalled when its
# requirement changed, so a second run is offline. Prints one line per server and exits 1
# when one differs or fails.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
LIST="tests/compat/corpus/servers.tsv"
CORPUS="$ROOT/.cache/compat-corpus"
export PIP_CACHE_DIR="${PIP_CACHE_DIR:-$HOME/.cache/mcpkit-corpus-pip}"
JOBS="${CORPUS_JOBS:-2}"
PYTHON="${PYTHON:-python3}"
CLIENT="$ROOT/.cache/peers/py/bin/python"
[ -x "$CLIENT" ] || { echo "the official client is missing: run scripts/peers.sh" >&2; exit 2; }
mkdir -p "$CORPUS" "$PIP_CACHE_DIR"

ci=0
wanted=()
for arg in "$@"; do
    if [ "$arg" = "--ci" ]; then ci=1; else wanted+=("$arg"); fi
done

selected=()
while IFS=$'\t' read -r name req style command in_ci; do
    case "$name" in ''|'#'*) continue ;; esac
    if [ ${#wanted[@]} -gt 0 ]; then
        printf '%s\n' "${wanted[@]}" | grep -qx "$name" || continue
    elif [ "$ci" = 1 ] && [ "$in_ci" != "yes" ]; then
        continue
    fi
    selected+=("$name")
done < "$LIST"

field() {  # field NAME COLUMN
    awk -F'\t' -v n="$1" -v c="$2" '$1 == n { print $c }' "$LIST"
}

lock_sum() {  # lock_sum NAME: the checksum of the server's lock, empty without one
    local lock="$ROOT/locks/corpus/$1.txt"
    if [ -f "$lock" ]; then cksum < "$lock"; fi
}

install_one() {
    local name="$1" req venv stamp
    req="$(field "$name" 2)"
    venv="$CORPUS/$name"
    stamp="$venv/.requirement"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$req $(lock_sum "$name")" ]; then
        return 0
    fi
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    local reqs lock="$ROOT/locks/corpus/$name.txt" pip=("$venv/bin/python" -m pip install --quiet
        --disable-pip-version-check)
    read -r -a reqs <<< "$req"  # a requirement may pin the SDK too: "server==1 mcp==1.30.0"
    # A server of the CI part installs exactly what its lock says (scripts/lock.sh writes it),
    # then mcpkit from this checkout without resolving anything again; the others as asked.
    if if [ -f "$lock" ]; then
            "${pip[@]}" --require-hashes --no-deps -r "$lock" \
                && "${pip[@]}" --no-deps --no-build-isolation -e "$ROOT"
        else
            "${pip[@]}" "${reqs[@]}" -e "$ROOT"
        fi > "$venv.install.log" 2>&1; then
        echo "$req $(lock_sum "$name")" > "$stamp"
    else
        echo "install failed: $name (see ${venv#"$ROOT"/}.install.log)" >&2
    fi
}
export -f install_one field lock_sum
export LIST CORPUS ROOT PYTHON
printf '%s\n' "${selected[@]}" | xargs -P "$JOBS" -I{} bash -c 'install_one "$@"' _ {}

status=0
for name in "${selected[@]}"; do
    venv="$CORPUS/$name"
    if [ ! -f "$venv/.requirement" ]; then
        echo "$name: not installed"; status=1; continue
    fi
    tmp="$(mktemp -d)"
    read -r -a command <<< "$(field "$name" 4)"  # {tmp}: compare.py gives each side its own
    script="tests/compat/corpus/scripts/$name.json"
    [ -f "$script" ] || { script="$tmp/script.json"; echo '[{"op": "list"}]' > "$script"; }
    if out="$(PYTHONPATH="$ROOT/src${PYTHONPATH:+:$PYTHONPATH}" timeout 300 \
        "$ROOT/.venv/bin/python" tests/compat/corpus/compare.py "$venv" "$script" -- "${command[@]}" 2>&1)"; then
        echo "$name ($(field "$name" 3)): same"
    else
        echo "$name ($(field "$name" 3)): DIFFERS"
        printf '%s\n' "$out" | tail -20 | sed 's/^/    /'
        status=1
    fi
    rm -rf "$tmp"
done
exit "$status"
