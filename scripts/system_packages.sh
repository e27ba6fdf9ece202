#!/usr/bin/env bash
# Installs the Debian packages the integration tests run for real, when they are missing:
#   redis-server  the scale-out tests (tests/scaleout) start their own on a free port
#   nginx         the load balancer in front of several mcpkit replicas (tests/scaleout)
#   chromium      the browser that drives the web inspector (tests/dev, via Playwright)
# Tests start and stop these themselves, on 127.0.0.1; nothing here runs a service.
# Needs root (CI is root) and apt; elsewhere it only reports what is missing.
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ "${#missing[@]}" -eq 0 ]; then
    echo "system packages: redis-server, nginx and chromium are installed"
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "system packages missing (install them with your package manager): ${missing[*]}" >&2
    exit 1
fi
echo "==> apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# policy-rc.d 101: the packages' own scripts must not start the services system-wide.
printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
chmod +x /usr/sbin/policy-rc.d
trap 'rm -f /usr/sbin/policy-rc.d' EXIT
apt-get install -y -qq "${missing[@]}" >/dev/null
echo "system packages: installed ${missing[*]}"
