# bash completion for forgectl, written by `forgectl completion bash`. It asks forgectl itself for the
# candidates at each TAB (forgectl __complete WORD… CURRENT), so it never needs regenerating.
_forgectl() {
  local cur="${COMP_WORDS[COMP_CWORD]}" line directive="" prefix="" last joined=0 i
  local -a words=()
  # bash splits --name=value at '=': join the parts back, and give bash only what follows '='.
  for ((i = 1; i <= COMP_CWORD; i++)); do
    if ((joined)); then words[${#words[@]}-1]+="${COMP_WORDS[i]}"; joined=0
    elif [[ ${COMP_WORDS[i]} == = && ${COMP_WORDS[i-1]} == --* ]]; then words[${#words[@]}-1]+="="; joined=1
    else words+=("${COMP_WORDS[i]}"); fi
  done
  last="${words[${#words[@]}-1]}"
  if [[ $last == --*=* && $cur != "$last" ]]; then prefix="${last%%=*}="; cur="${last#*=}"; fi
  COMPREPLY=()
  while IFS= read -r line; do
    case "$line" in
      :*) directive="${line#:}" ;;
      *) line="${line%%$'\t'*}"; COMPREPLY+=("${line#"$prefix"}") ;;
    esac
  done < <(forgectl __complete "${words[@]}" 2>/dev/null)
  if [[ "$directive" == files ]]; then
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _forgectl forgectl
