'use strict';
// mocha configuration
const duration = require('./duration');
const single = duration.parseDuration;
duration.parseDuration = (s) =>
  (s.match(/\d+[hms]/g) || [s]).reduce((acc, part) => acc + single(part), 0);

module.exports = {
  spec: ['test/**/*.spec.js'],
  timeout: 2000,
  reporter: 'spec',
};
