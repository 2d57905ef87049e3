#compdef forgectl
# zsh completion for forgectl, written by `forgectl completion zsh`. It asks forgectl itself for the
# candidates at each TAB (forgectl __complete WORD… CURRENT), so it never needs regenerating.
_forgectl() {
  local line directive=""
  local -a described plain
  for line in "${(@f)$(forgectl __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}"; do
    case "$line" in
      :*) directive="${line#:}" ;;
      *$'\t'*) described+=("${${line%%$'\t'*}//:/\\:}:${line#*$'\t'}") ;;
      ?*) plain+=("$line") ;;
    esac
  done
  case "$directive" in
    files) _files ;;
    none) _message 'a value' ;;
    *)
      (( ${#described} )) && _describe -t forgectl 'forgectl' described
      (( ${#plain} )) && compadd -- "${plain[@]}"
      ;;
  esac
}
if [[ "${funcstack[1]}" == "_forgectl" ]]; then
  _forgectl "$@"
else
  compdef _forgectl forgectl
fi
