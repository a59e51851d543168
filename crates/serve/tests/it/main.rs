//! pawl-serve's integration tests: a real daemon on 127.0.0.1 over temporary stores, driven by
//! a raw HTTP/1.1 client (so headers such as Host and Origin are exactly what a test says).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api;
mod live;
mod security;
mod start;
mod support;
