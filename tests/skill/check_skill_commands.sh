#!/usr/bin/env bash
# Runs every `kprof ...` line of the ```sh blocks in skill/SKILL.md with the built binary, from the repository root
# (dry runs, or the bundled H200 fixtures), and fails when one exits non-zero or the skill shows none. A CTest test
# (Skill.CommandsRun).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kprof=${1:?usage: check_skill_commands.sh <kprof binary>}
cd "$root"
n=0
kernels_built=0; [ -x "$(dirname "$kprof")/kprof-kernels" ] && kernels_built=1
while IFS= read -r line; do
  n=$((n + 1))
  # Package commands (`kprof list`, `kprof <package> ...`) need kprof-kernels, built only with the CUDA toolkit.
  word=$(echo "${line#kprof }" | awk '{print $1}')
  case "$word" in run|analyze|compare|devices|devlog|clock|peaks|bench) ;; *)
    if [ "$kernels_built" = 0 ]; then echo "skill command skipped (no kprof-kernels in this build): $line"; continue; fi;;
  esac
  echo "skill command: $line"
  # shellcheck disable=SC2086
  if ! (set -f; eval "\"$kprof\" ${line#kprof }") > /dev/null; then
    echo "FAILED: $line" >&2
    exit 1
  fi
done < <(awk '/^```sh$/ {in_block=1; next} /^```/ {in_block=0} in_block && /^kprof / {print}' skill/SKILL.md)
[ "$n" -gt 0 ] || { echo "no kprof commands found in skill/SKILL.md" >&2; exit 1; }
echo "all $n skill commands ran"
