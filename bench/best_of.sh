# best_of, sourced by the bench scripts: the best wall time (s) of repeated runs of a command.
#
#   best_of CMD [ARGS...]
#
# Runs the command `repeats` times (the caller's variable), its output discarded and its errors
# kept in $best_of_stderr; calls the caller's best_of_before before each run and best_of_after
# after each, where it defines them (outside the timing). Prints the shortest time (in the
# printf format $best_of_format where set), or "failed"
# (the command's errors shown indented on stderr) when a run fails.
best_of() {
  local best="" t0 t1 t r
  for ((r = 0; r < repeats; ++r)); do
    if declare -F best_of_before >/dev/null; then best_of_before; fi
    t0=$(date +%s.%N)
    if ! "$@" >/dev/null 2>"$best_of_stderr"; then
      echo "failed"
      sed 's/^/  /' "$best_of_stderr" >&2
      return 0
    fi
    t1=$(date +%s.%N)
    if declare -F best_of_after >/dev/null; then best_of_after; fi
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    if [[ -z "$best" ]] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best=$t; fi
  done
  printf "${best_of_format:-%s}\n" "$best"
}
