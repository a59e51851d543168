# path_ext FILE: print the extension of FILE's last component, without the dot.
# Dotfiles (".bashrc") and names without a dot have no extension (print nothing).
path_ext() {
  printf '%s\n' "${1##*.}"
}
