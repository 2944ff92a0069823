#!/usr/bin/env bash
# Lock one GPU's SM clock for stable kernel timings, recording the previous state for reset-gpu-clock.sh.
# Dry run unless --yes or KPROF_ALLOW_CLOCK_CHANGE=1. Never run this on a shared GPU.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() {
  cat <<'USAGE'
usage: lock-gpu-clock.sh [--gpu N] [--sm-mhz MHZ] [--yes]
  Locks the SM clock of GPU N (default 0) to its default application clock (or MHZ), and the memory clock to
  its default application clock when the board has more than one memory clock (HBM boards have one: left alone).
  Without --yes (or KPROF_ALLOW_CLOCK_CHANGE=1) prints the nvidia-smi commands and changes nothing.
  The clocks as found go to ${XDG_STATE_HOME:-~/.local/state}/kprof/clock-gpuN.json; undo with reset-gpu-clock.sh.
  NVIDIA_SMI=path overrides the nvidia-smi program (tests use a fake).
USAGE
}
# shellcheck source=clock-common.sh
source "$HERE/clock-common.sh"
parse_common_args "$@"
query_clocks "$GPU"

if [[ -n "$SM_MHZ" ]]; then
  sm="$SM_MHZ"; echo "# SM clock $sm MHz as requested"
elif [[ -n "$Q_DEF_SM" ]]; then
  sm="$Q_DEF_SM"; echo "# SM clock $sm MHz: the default application clock"
else
  EXIT_CODE=2 die "GPU $GPU reports no default application clock: pass --sm-mhz"
fi
if [[ -n "$Q_MAX_SM" ]]; then
  ((sm <= Q_MAX_SM)) || EXIT_CODE=2 die "SM clock $sm MHz exceeds GPU $GPU's maximum $Q_MAX_SM MHz"
  ((sm == Q_MAX_SM)) && echo "# this is also the maximum SM clock: power or thermal capping can still lower it"
fi
CMDS=("$SMI"$'\x1f'-i$'\x1f'"$GPU"$'\x1f'-lgc$'\x1f'"$sm,$sm")
mem="${Q_DEF_MEM:-$Q_MAX_MEM}"; lock_mem=""
if [[ -n "$mem" && -n "$Q_MAX_MEM" && "$mem" != "$Q_MAX_MEM" ]]; then
  lock_mem="$mem"; echo "# memory clock $mem MHz: the default application memory clock"
  CMDS+=("$SMI"$'\x1f'-i$'\x1f'"$GPU"$'\x1f'-lmc$'\x1f'"$mem,$mem")
elif [[ -n "$mem" ]]; then
  echo "# memory clock left alone: the board runs it at one clock ($mem MHz)"
else
  echo "# memory clock left alone: not reported"
fi

state="$(state_file "$GPU")"
wrote_state=0
if allowed && [[ ! -e "$state" ]]; then
  mkdir -p "$(dirname "$state")"
  name_json="${Q_NAME//\\/\\\\}"; name_json="${name_json//\"/\\\"}"
  cat > "$state.tmp.$$" <<JSON
{
  "schema": "kprof.clock-state/1",
  "gpu": $GPU,
  "name": "$name_json",
  "timestamp": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "locked_by": "lock-gpu-clock.sh",
  "sm_mhz_before": $(json_num "$Q_SM"),
  "mem_mhz_before": $(json_num "$Q_MEM"),
  "app_sm_mhz_before": $(json_num "$Q_APP_SM"),
  "app_mem_mhz_before": $(json_num "$Q_APP_MEM"),
  "locked_sm_mhz": $sm,
  "locked_mem_mhz": $(json_num "$lock_mem")
}
JSON
  mv "$state.tmp.$$" "$state"
  wrote_state=1
fi
if ! run_or_print; then
  # Nothing was locked if the first command failed: a record would make reset undo a lock that never happened.
  [[ "$wrote_state" == 1 ]] && rm -f "$state"
  die "locking GPU $GPU failed (root is usually required)"
fi
allowed && echo "locked GPU $GPU (state: $state); undo with: $HERE/reset-gpu-clock.sh --gpu $GPU --yes"
exit 0
