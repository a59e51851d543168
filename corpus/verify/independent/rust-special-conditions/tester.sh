#!/bin/sh
# The independent tester for this case (issue 33 point 2; written by the team, not the case's
# author): digital_root on inputs the visible tests do not use.
cat > "$PAWL_TESTER_OUT/hidden_root.rs" <<'RS'
use digits::digital_root;

#[test]
fn other_inputs() {
    assert_eq!(digital_root(99999), 9);
    assert_eq!(digital_root(199), 1);
    assert_eq!(digital_root(987654321), 9);
}
RS
