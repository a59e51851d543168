#[test]
fn marathon() {
    let km = units::imperial::miles_to_km(26.2188);
    assert!((km - 42.195).abs() < 0.001, "{km}");
}
