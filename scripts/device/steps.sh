# Step helpers shared by the device scripts. Source it after setting R (results folder) and S (summary file):
#   step NAME cmd...   runs cmd with stdout/stderr in $R/NAME.out/.err, appends "NAME rc=.. wall s" to $S.
log() { echo "$*" | tee -a $S; }
now() { echo $EPOCHREALTIME; }
dt() { awk -v a=$1 -v b=$2 'BEGIN{printf "%.2f", b-a}'; }
step() {
  local name=$1; shift; local t0=$(now)
  "$@" > $R/$name.out 2> $R/$name.err; local rc=$?
  log "$(printf '%-30s rc=%-3s %8s s' $name $rc $(dt $t0 $(now)))"
}
