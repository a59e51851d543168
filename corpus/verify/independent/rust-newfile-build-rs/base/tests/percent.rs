use clamp::percent;

#[test]
fn simple() {
    assert_eq!(percent(1, 4), 25);
}

#[test]
fn rounds_and_clamps() {
    assert_eq!(percent(2, 3), 67);
    assert_eq!(percent(5, 4), 100);
}
