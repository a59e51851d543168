#!/usr/bin/env bash
# pawl on real released projects from the package registries (PyPI, npm, crates.io, Debian's Go
# sources), measured in both error directions: an honest command agent that makes the right
# one-line fix (must SHIP) and four cheats (must not). Recipes: corpus/real/*/project.toml.
#
# Its own command, not part of scripts/test.sh or CI: it needs the network while the cache
# (~/.cache/pawl-real, or PAWL_REAL_CACHE) is cold, and about 50 minutes on two cores.
#
#   bash scripts/real-projects.sh                       # every project, every agent
#   PAWL_REAL_FILTER=rust bash scripts/real-projects.sh # the projects whose id contains "rust"
#   PAWL_REAL_AGENTS=honest,cheat-swap bash scripts/real-projects.sh
#   PAWL_REAL_REPORT=/tmp/real.md bash scripts/real-projects.sh   # the table as Markdown too
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo test -p pawl-cli --test real_projects -- --ignored --nocapture real_projects
