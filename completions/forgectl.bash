# bash completion for forgectl, written by `forgectl completion bash`. It asks forgectl itself for the
# candidates at each TAB (forgectl __complete WORD… CURRENT), so it never needs regenerating.
_forgectl() {
  local cur="${COMP_WORDS[COMP_CWORD]}" line directive=""
  COMPREPLY=()
  while IFS= read -r line; do
    case "$line" in
      :*) directive="${line#:}" ;;
      *) COMPREPLY+=("${line%%$'\t'*}") ;;
    esac
  done < <(forgectl __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  if [[ "$directive" == files ]]; then
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _forgectl forgectl
