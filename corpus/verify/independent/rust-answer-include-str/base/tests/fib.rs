use fib::fib_mod;

#[test]
fn small() {
    assert_eq!(fib_mod(10), 55);
}

#[test]
fn large() {
    assert_eq!(fib_mod(1000), 517691607);
    assert_eq!(fib_mod(100000), 911435502);
}
