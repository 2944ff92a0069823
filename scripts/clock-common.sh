# Shared by lock-gpu-clock.sh and reset-gpu-clock.sh (sourced, not run). Mirrors src/collect/clock/.
SMI="${NVIDIA_SMI:-nvidia-smi}"
QUERY_FIELDS_BASE="index,name,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,clocks.applications.memory,clocks.default_applications.graphics,clocks.default_applications.memory"

die() { echo "$(basename "$0"): $*" >&2; exit "${EXIT_CODE:-1}"; }

# Words printed as the C++ side prints them (shell_command): plain words bare, others single-quoted.
show() {
  local out="" a
  for a in "$@"; do
    if [[ "$a" =~ ^[A-Za-z0-9_./,=:+@%-]+$ ]]; then out+="$a "; else out+="'${a//\'/\'\\\'\'}' "; fi
  done
  echo "${out% }"
}

allowed() { [[ "$YES" == 1 || "${KPROF_ALLOW_CLOCK_CHANGE:-0}" == 1 ]]; }

state_file() { echo "${XDG_STATE_HOME:-$HOME/.local/state}/kprof/clock-gpu$1.json"; }

# number or empty ("[N/A]" and friends)
num() { [[ "$1" =~ ^[0-9]+$ ]] && echo "$1" || echo ""; }
json_num() { [[ -n "$1" ]] && echo "$1" || echo null; }

# Sets Q_NAME Q_SM Q_MEM Q_MAX_SM Q_MAX_MEM Q_APP_SM Q_APP_MEM Q_DEF_SM Q_DEF_MEM Q_REASONS for GPU $1.
query_clocks() {
  local out field
  for field in clocks_event_reasons.active clocks_throttle_reasons.active; do
    if out=$("$SMI" -i "$1" --query-gpu="$QUERY_FIELDS_BASE,$field" --format=csv,noheader,nounits 2>&1); then
      break
    fi
    [[ "$out" == *"not a valid field"* ]] || { EXIT_CODE=4 die "$SMI failed for GPU $1: $out"; }
  done
  [[ "$out" == *"not a valid field"* ]] && { EXIT_CODE=4 die "$SMI failed for GPU $1: $out"; }
  local idx name sm mem maxsm maxmem appsm appmem defsm defmem reasons extra
  IFS=',' read -r idx name sm mem maxsm maxmem appsm appmem defsm defmem reasons extra <<< "$(head -n1 <<< "$out")"
  [[ -n "${reasons// /}" && -z "$extra" ]] || EXIT_CODE=3 die "unexpected $SMI output: $out"
  trim() { local s="$1"; s="${s#"${s%%[! ]*}"}"; echo "${s%"${s##*[! ]}"}"; }
  Q_NAME=$(trim "$name"); Q_SM=$(num "$(trim "$sm")"); Q_MEM=$(num "$(trim "$mem")")
  Q_MAX_SM=$(num "$(trim "$maxsm")"); Q_MAX_MEM=$(num "$(trim "$maxmem")")
  Q_APP_SM=$(num "$(trim "$appsm")"); Q_APP_MEM=$(num "$(trim "$appmem")")
  Q_DEF_SM=$(num "$(trim "$defsm")"); Q_DEF_MEM=$(num "$(trim "$defmem")")
  Q_REASONS=$(trim "$reasons")
}

parse_common_args() {
  GPU=0; YES=0; SM_MHZ=""
  while (($#)); do
    case "$1" in
      --gpu) [[ $# -ge 2 ]] || EXIT_CODE=2 die "--gpu needs a value"; GPU="$2"; shift 2 ;;
      --gpu=*) GPU="${1#*=}"; shift ;;
      --yes|-y) YES=1; shift ;;
      --sm-mhz) [[ $# -ge 2 && "$0" == *lock-gpu-clock.sh ]] || EXIT_CODE=2 die "unknown option $1"; SM_MHZ="$2"; shift 2 ;;
      -h|--help) usage; exit 0 ;;
      *) EXIT_CODE=2 die "unknown argument '$1' (see --help)" ;;
    esac
  done
  [[ "$GPU" =~ ^[0-9]+$ ]] || EXIT_CODE=2 die "--gpu wants a GPU index, got '$GPU'"
  [[ -z "$SM_MHZ" || "$SM_MHZ" =~ ^[1-9][0-9]*$ ]] || EXIT_CODE=2 die "--sm-mhz wants MHz, got '$SM_MHZ'"
}

# Runs the commands in CMDS (one string per command, words separated by \x1f) or prints them (dry run).
run_or_print() {
  local c words
  if ! allowed; then
    echo "# dry run: clocks unchanged. Re-run with --yes (or KPROF_ALLOW_CLOCK_CHANGE=1) to execute:"
    for c in "${CMDS[@]}"; do IFS=$'\x1f' read -r -a words <<< "$c"; show "${words[@]}"; done
    return 0
  fi
  for c in "${CMDS[@]}"; do
    IFS=$'\x1f' read -r -a words <<< "$c"
    echo "+ $(show "${words[@]}")"
    "${words[@]}" || return 1
  done
}
