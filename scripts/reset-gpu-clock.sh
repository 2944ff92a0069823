#!/usr/bin/env bash
# Undo lock-gpu-clock.sh (or a kprof run that died while holding a clock lock): restore the recorded state,
# or reset SM and memory clocks to their defaults when nothing was recorded.
# Dry run unless --yes or KPROF_ALLOW_CLOCK_CHANGE=1.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() {
  cat <<'USAGE'
usage: reset-gpu-clock.sh [--gpu N] [--yes]
  Restores GPU N (default 0) from ${XDG_STATE_HOME:-~/.local/state}/kprof/clock-gpuN.json: resets the SM clock
  lock and, when it was locked, the memory clock lock. With no record: nvidia-smi -rgc and -rmc.
  Without --yes (or KPROF_ALLOW_CLOCK_CHANGE=1) prints the commands and changes nothing.
USAGE
}
# shellcheck source=clock-common.sh
source "$HERE/clock-common.sh"
parse_common_args "$@"

state="$(state_file "$GPU")"
CMDS=("$SMI"$'\x1f'-i$'\x1f'"$GPU"$'\x1f'-rgc)
if [[ -f "$state" ]]; then
  by=$(sed -n 's/^ *"locked_by": *"\(.*\)",*$/\1/p' "$state")
  at=$(sed -n 's/^ *"timestamp": *"\(.*\)",*$/\1/p' "$state")
  echo "# restoring the state recorded $at by $by"
  grep -Eq '"locked_mem_mhz": *[0-9]' "$state" && CMDS+=("$SMI"$'\x1f'-i$'\x1f'"$GPU"$'\x1f'-rmc)
else
  echo "# no recorded lock for GPU $GPU: resetting SM and memory clocks to their defaults"
  CMDS+=("$SMI"$'\x1f'-i$'\x1f'"$GPU"$'\x1f'-rmc)
fi
run_or_print || die "resetting GPU $GPU failed (root is usually required); state kept in $state"
if allowed; then
  rm -f "$state"
  echo "reset GPU $GPU"
fi
exit 0
