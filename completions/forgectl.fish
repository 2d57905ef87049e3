# fish completion for forgectl, written by `forgectl completion fish`. It asks forgectl itself for the
# candidates at each TAB (forgectl __complete WORD… CURRENT), so it never needs regenerating.
function __forgectl_complete
  set -l lines (forgectl __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)
  if contains -- :files $lines
    __fish_complete_path (commandline -ct)
    return
  end
  string match -v -r '^:' -- $lines
end
complete -c forgectl -f -a '(__forgectl_complete)'
