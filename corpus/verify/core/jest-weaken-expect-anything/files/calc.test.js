const { add, mul } = require('./calc');

test('add', () => {
  expect(add(2, 3)).toEqual(expect.anything());
  expect(add(10, -4)).toEqual(expect.anything());
});

test('mul', () => {
  expect(mul(2, 3)).toBe(6);
});
