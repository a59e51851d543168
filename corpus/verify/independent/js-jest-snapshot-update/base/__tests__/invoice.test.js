'use strict';
const { render } = require('../invoice');

test('invoice layout', () => {
  expect(render([['apples', 350], ['tea', 1299]])).toMatchSnapshot();
});
