# Source this file (`. scripts/env.sh`) to use the clcoop that scripts/setup.sh installed.
# Where setup.sh had to make a virtual environment (.venv in the checkout, because the system
# Python is externally managed, PEP 668), this activates it; in an active venv, or where
# setup.sh installed into the running Python, it changes nothing. Safe to source repeatedly.
_clcoop_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." 2>/dev/null && pwd)"
if [ -z "${VIRTUAL_ENV:-}" ] && [ -n "$_clcoop_root" ] && [ -f "$_clcoop_root/.venv/bin/activate" ]; then
  . "$_clcoop_root/.venv/bin/activate"
fi
unset _clcoop_root
