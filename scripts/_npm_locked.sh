# Sourced by the scripts that install Node trees. Needs ROOT and NPM.
#
# npm_locked TREE DIR PACKAGE@VERSION...: DIR/node_modules exactly as locks/node/TREE records
# it (package.json + package-lock.json, installed with `npm ci`). When the lock is missing
# (a new tree, or one deleted to move to newer versions), the packages are resolved once,
# pinned exactly, and the lock is written to locks/node/TREE to be committed.
npm_locked() {
    local tree="$1" dir="$2"
    shift 2
    local lockdir="$ROOT/locks/node/$tree"
    mkdir -p "$dir"
    if [ -f "$lockdir/package-lock.json" ]; then
        if [ -d "$dir/node_modules" ] && cmp -s "$lockdir/package-lock.json" "$dir/.locked"; then
            return 0
        fi
        echo "==> installing locks/node/$tree into ${dir#"$ROOT"/}"
        cp "$lockdir/package.json" "$lockdir/package-lock.json" "$dir/"
        (cd "$dir" && "${NPM[@]}" ci --no-audit --no-fund --silent)
    else
        echo "==> resolving $* (no locks/node/$tree yet: writing it)"
        mkdir -p "$lockdir"
        rm -rf "$dir/node_modules" "$dir/package-lock.json"
        printf '{\n  "name": "mcpkit-%s",\n  "private": true\n}\n' "$tree" >"$dir/package.json"
        (cd "$dir" && "${NPM[@]}" install --save-exact --no-audit --no-fund --silent "$@")
        cp "$dir/package.json" "$dir/package-lock.json" "$lockdir/"
    fi
    cp "$lockdir/package-lock.json" "$dir/.locked"
}
