# shared helpers for the tests: quieter check output
check() {
  echo "ok - $1"
}
