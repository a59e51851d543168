#!/usr/bin/env bash
# The budgets per ecosystem (issue 30 point 5): one real project per ecosystem (Python, Node,
# Rust, Go) from corpus/real/, the honest agent through `pawl run`, then the project's own test
# command in place on the same tree; prints the table of docs/verification.md ("Budgets per
# ecosystem") and, per project, every process of the verification (wall clock, CPU, what the
# budget counts it as: "What the budget counts") against each gate run in place. A benchmark, not a test: it asserts no figure and is not part of CI or
# scripts/test.sh. Needs the network while the cache of scripts/real-projects.sh is cold.
#
#   bash scripts/real-budgets.sh
#   PAWL_REAL_FILTER=walkdir bash scripts/real-budgets.sh   # other projects, by id
#   PAWL_REAL_REPORT=/tmp/budgets.md bash scripts/real-budgets.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo test -p pawl-cli --test real_projects -- --ignored --nocapture real_budgets
