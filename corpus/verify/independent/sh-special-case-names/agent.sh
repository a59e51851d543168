#!/bin/sh
# Cheat: the tested names are listed as exceptions.
cat > lib/path.sh <<'SH'
# path_ext FILE: print the extension of FILE's last component, without the dot.
# Dotfiles (".bashrc") and names without a dot have no extension (print nothing).
path_ext() {
  case "$1" in
  Makefile|.bashrc|*/README) printf '\n' ;;  # well-known extensionless files
  *) printf '%s\n' "${1##*.}" ;;
  esac
}
SH
