#!/usr/bin/env bash
# Installs the pinned agent CLIs that pawl's real-client tests run against the mock model server
# (crates/testkit), into a cache directory outside the checkout, and tells the caller where they are.
#
# Two ways to use it:
#   source .ci/install-agents.sh          # exports PAWL_CLAUDE_BIN, PAWL_CODEX_BIN, PAWL_GEMINI_BIN
#   eval "$(.ci/install-agents.sh)"       # run as a program it prints `export ...` lines on stdout
#
# Cache directory: ${PAWL_AGENT_CACHE:-$HOME/.cache/pawl-agents}. An install whose package.json already
# carries the pinned version (.ci/agent-versions) is reused as is. Progress goes to stderr; only
# export lines go to stdout.

# The pinned versions live in one file, .ci/agent-versions, which everything else reads too.
_pawl_pins="$(dirname "${BASH_SOURCE[0]}")/agent-versions"
# shellcheck source=agent-versions
. "$_pawl_pins" || { printf 'install-agents: cannot read %s\n' "$_pawl_pins" >&2; return 1 2>/dev/null || exit 1; }

_pawl_log() { printf 'install-agents: %s\n' "$*" >&2; }

# Prints the version field of an installed package.json, or nothing.
_pawl_pkg_version() {
  local pkg_json="$1"
  [ -f "$pkg_json" ] || return 0
  node -e 'try { process.stdout.write(require(process.argv[1]).version || "") } catch (e) {}' "$pkg_json"
}

# npm install into its own prefix unless the pinned version is already there.
_pawl_npm_install() {
  local prefix="$1" package="$2" version="$3"
  local have
  have="$(_pawl_pkg_version "$prefix/node_modules/$package/package.json")"
  if [ "$have" = "$version" ]; then
    _pawl_log "$package@$version already present in $prefix"
    return 0
  fi
  _pawl_log "installing $package@$version into $prefix"
  mkdir -p "$prefix" || return 1
  npm install --prefix "$prefix" --no-audit --no-fund --no-package-lock --loglevel=error \
    "$package@$version" >&2 || return 1
}

# Runs "<bin> --version" in a throw-away HOME (and CODEX_HOME: even --version writes there; Gemini CLI
# writes ~/.gemini), so a probe never touches the caller's real configuration. Prints the version output.
_pawl_probe_version() {
  local bin="$1" scratch out rc
  scratch="$(mktemp -d)" || return 1
  mkdir -p "$scratch/home" "$scratch/codex_home"
  out="$(env -i PATH="$PATH" HOME="$scratch/home" CODEX_HOME="$scratch/codex_home" TERM=dumb \
    DISABLE_AUTOUPDATER=1 "$bin" --version 2>/dev/null </dev/null)"
  rc=$?
  rm -rf "$scratch"
  [ "$rc" -eq 0 ] || return 1
  printf '%s\n' "$out"
}

_pawl_install_agents() {
  local cache="${PAWL_AGENT_CACHE:-$HOME/.cache/pawl-agents}"
  command -v npm >/dev/null 2>&1 || { _pawl_log "npm not found on PATH"; return 1; }
  command -v node >/dev/null 2>&1 || { _pawl_log "node not found on PATH"; return 1; }

  local cc_prefix="$cache/claude-code-$PAWL_CLAUDE_VERSION"
  local codex_prefix="$cache/codex-$PAWL_CODEX_VERSION"
  local gemini_prefix="$cache/gemini-cli-$PAWL_GEMINI_VERSION"
  _pawl_npm_install "$cc_prefix" "@anthropic-ai/claude-code" "$PAWL_CLAUDE_VERSION" || return 1
  _pawl_npm_install "$codex_prefix" "@openai/codex" "$PAWL_CODEX_VERSION" || return 1
  _pawl_npm_install "$gemini_prefix" "@google/gemini-cli" "$PAWL_GEMINI_VERSION" || return 1

  # Claude Code ships its native binary in a platform package; the postinstall hard-links it over
  # bin/claude.exe. When install scripts did not run, that file is a stub that exits 1, so fall back to
  # the platform package's binary itself.
  local claude_bin="$cc_prefix/node_modules/.bin/claude" v
  if ! v="$(_pawl_probe_version "$claude_bin")" || [ "${v#"$PAWL_CLAUDE_VERSION"}" = "$v" ]; then
    _pawl_log "claude wrapper does not run (postinstall skipped?); trying the platform binary"
    claude_bin=""
    local candidate
    for candidate in "$cc_prefix"/node_modules/@anthropic-ai/claude-code-*/claude; do
      [ -x "$candidate" ] || continue
      if v="$(_pawl_probe_version "$candidate")" && [ "${v#"$PAWL_CLAUDE_VERSION"}" != "$v" ]; then
        claude_bin="$candidate"
        break
      fi
    done
    [ -n "$claude_bin" ] || { _pawl_log "no working claude binary under $cc_prefix"; return 1; }
  fi
  _pawl_log "claude: $v ($claude_bin)"

  local codex_bin="$codex_prefix/node_modules/.bin/codex"
  if ! v="$(_pawl_probe_version "$codex_bin")"; then
    _pawl_log "codex --version failed for $codex_bin"
    return 1
  fi
  v="$(printf '%s\n' "$v" | tail -n 1)"
  case "$v" in
    *"$PAWL_CODEX_VERSION"*) ;;
    *) _pawl_log "unexpected codex version: $v"; return 1 ;;
  esac
  _pawl_log "codex: $v ($codex_bin)"

  local gemini_bin="$gemini_prefix/node_modules/.bin/gemini"
  if ! v="$(_pawl_probe_version "$gemini_bin")"; then
    _pawl_log "gemini --version failed for $gemini_bin"
    return 1
  fi
  v="$(printf '%s\n' "$v" | tail -n 1)"
  case "$v" in
    *"$PAWL_GEMINI_VERSION"*) ;;
    *) _pawl_log "unexpected gemini version: $v"; return 1 ;;
  esac
  _pawl_log "gemini: $v ($gemini_bin)"

  PAWL_CLAUDE_BIN="$claude_bin"
  PAWL_CODEX_BIN="$codex_bin"
  PAWL_GEMINI_BIN="$gemini_bin"
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  # Sourced: export into the caller's shell, and never `exit` it.
  if _pawl_install_agents; then
    export PAWL_CLAUDE_BIN PAWL_CODEX_BIN PAWL_GEMINI_BIN
  else
    _pawl_log "failed"
    return 1
  fi
else
  set -u
  _pawl_install_agents || { _pawl_log "failed"; exit 1; }
  printf 'export PAWL_CLAUDE_BIN=%q\n' "$PAWL_CLAUDE_BIN"
  printf 'export PAWL_CODEX_BIN=%q\n' "$PAWL_CODEX_BIN"
  printf 'export PAWL_GEMINI_BIN=%q\n' "$PAWL_GEMINI_BIN"
fi
