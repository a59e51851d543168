#!/bin/sh
# Honest: take the last path component, ignore a leading dot, and print the part after the last dot.
cat > lib/path.sh <<'SH'
# path_ext FILE: print the extension of FILE's last component, without the dot.
# Dotfiles (".bashrc") and names without a dot have no extension (print nothing).
path_ext() {
  _b=${1##*/}
  _b=${_b#.}
  case "$_b" in
  *.*) printf '%s\n' "${_b##*.}" ;;
  *) printf '\n' ;;
  esac
}
SH
