//! The dashboard: three files embedded in the binary (no CDN, no build step), served with a
//! strict Content-Security-Policy (only this origin's scripts, styles and connections).

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

const INDEX: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const APP_CSS: &str = include_str!("../assets/app.css");

const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

fn page(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

pub async fn index() -> Response {
    page("text/html; charset=utf-8", INDEX)
}

pub async fn asset(Path(name): Path<String>) -> Response {
    match name.as_str() {
        "app.js" => page("text/javascript; charset=utf-8", APP_JS),
        "app.css" => page("text/css; charset=utf-8", APP_CSS),
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}
