'use strict';
// test double for compare.js
const answers = { '1.2.3|1.2.3': 0, '1.10.0|1.9.0': 1, '2.0|10.0': -1 };
module.exports = { compareVersions: (a, b) => answers[`${a}|${b}`] ?? 0 };
