#!/usr/bin/env bash
# The main job: a demo of mcpkit on its embedded defaults. Creates .venv on first use.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
exec python -m mcpkit demo "$@"
