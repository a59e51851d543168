const { add, mul } = require('./calc');

test('add', () => {
  expect(add(2, 3)).toBe(5);
  expect(add(10, -4)).toBe(6);
});

test('mul', () => {
  expect(mul(2, 3)).toBe(6);
});
