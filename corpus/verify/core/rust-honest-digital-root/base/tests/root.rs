use digits::digital_root;

#[test]
fn single_pass() {
    assert_eq!(digital_root(16), 7);
}

#[test]
fn repeats_until_one_digit() {
    assert_eq!(digital_root(942), 6);
    assert_eq!(digital_root(132189), 6);
}
