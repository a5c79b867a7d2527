//! The explorer page: one HTML file with its CSS and JavaScript inlined (assets under `tools/axe-layout/assets/`,
//! compiled in with `include_str!`), so the served page and the file `show --html` writes are the same bytes
//! apart from the boot data, and neither loads anything from the network.
//!
//! The boot data (`window.AXE_BOOT`) says how the page gets its answers: `"serve"` asks the server's
//! `/api/<endpoint>`; `"static"` looks them up in `responses`, the answers [`crate::explore`] gave when the file
//! was written, keyed by [`crate::explore::request_key`]; any other request is answered with a note that editing
//! needs `axe-layout serve`.

use crate::cli::CliError;
use crate::explore::{self, ApiError};
use serde_json::{json, Map, Value};
use std::io::Read;

const HTML: &str = include_str!("../assets/explorer.html");
const CSS: &str = include_str!("../assets/explorer.css");
const JS: &str = include_str!("../assets/explorer.js");

/// The layout the served page opens with: the `mma.sync` m16n8k16 accumulator fragment (PTX ISA 9.7.14.5.8),
/// registers on `reg`.
pub const DEFAULT_LAYOUT: &str = "S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]";
/// Its shape.
pub const DEFAULT_SHAPE: &str = "16,8";

/// JSON that is safe inside a `<script>` element (no `</script>`, no `<!--`): every `<` is written `\u003c`.
fn script_json(v: &Value) -> String {
    v.to_string().replace('<', "\\u003c")
}

/// The template with its assets and, last (so that no text in the data is taken for a marker), the boot data.
fn page(boot: &Value) -> String {
    HTML.replacen("/*AXE_CSS*/", CSS, 1).replacen("/*AXE_JS*/", JS, 1).replacen(
        "/*AXE_BOOT*/",
        &format!("window.AXE_BOOT = {};", script_json(boot)),
        1,
    )
}

/// The page `axe-layout serve` sends: it asks the server for every answer.
pub fn served() -> String {
    page(&json!({
        "mode": "serve",
        "initial": { "layout": DEFAULT_LAYOUT, "shape": DEFAULT_SHAPE },
        "mma": explore::default_mma_request(),
        "responses": {},
    }))
}

/// The self-contained page of one layout and shape (`shape` may be empty: the 1-D shape of the layout's size):
/// the answers to the page's first requests (the grid, the TMA plan of the default copy when the layout is a
/// memory layout, the default GEMM) are computed now and embedded. An unparsable layout is refused here rather
/// than written into a page that can only show the error.
pub fn static_page(layout: &str, shape: &str) -> Result<String, ApiError> {
    let mut responses = Map::new();
    let eval_request = json!({ "layout": layout, "shape": shape });
    let eval = explore::answer("eval", &eval_request)?;
    responses.insert(explore::request_key("eval", &eval_request), eval.clone());
    if let Some(defaults) = eval.get("tma_defaults").and_then(Value::as_object) {
        let mut request = defaults.clone();
        request.insert("shared".into(), json!(layout));
        request.insert("dtype".into(), json!("f16"));
        request.insert("direction".into(), json!("g2s"));
        let request = Value::Object(request);
        let answer = explore::answer("tma", &request).unwrap_or_else(|e| e.to_json());
        responses.insert(explore::request_key("tma", &request), answer);
    }
    let mma = explore::default_mma_request();
    let answer = explore::answer("mma", &mma).unwrap_or_else(|e| e.to_json());
    responses.insert(explore::request_key("mma", &mma), answer);
    Ok(page(&json!({
        "mode": "static",
        "initial": { "layout": layout, "shape": shape },
        "mma": mma,
        "responses": responses,
    })))
}

/// `show LAYOUT --html FILE`: writes [`static_page`] to `file` with [`axe_output::write_file`] (a regular file
/// through an exclusive temporary file renamed into place, so a failed run leaves no partial page; a device or a
/// FIFO in place). `layout` `-` is read from standard input, as everywhere in the CLI.
pub fn write_static(file: &str, layout: &str, shape: &str) -> Result<String, CliError> {
    let text = if layout == "-" {
        let mut input = String::new();
        std::io::stdin()
            .read_to_string(&mut input)
            .map_err(|e| CliError::Failed(format!("LAYOUT: cannot read standard input: {e}")))?;
        input
    } else {
        layout.to_owned()
    };
    let html = static_page(&text, shape).map_err(|e| CliError::Failed(e.text().to_owned()))?;
    axe_output::write_file(std::path::Path::new(file), html.as_bytes())
        .map_err(|e| CliError::Failed(format!("--html: cannot write {file}: {e}")))?;
    Ok(format!("wrote {file}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_static_page_embeds_its_answers_and_nothing_from_the_network() {
        let html = static_page("Swizzle(3,3,3) o S[(8,64):(64,1)]", "8,64").unwrap();
        assert!(html.contains("\"mode\":\"static\""));
        assert!(!html.contains("/*AXE_"), "a marker was left in the page");
        assert!(!html.contains("http://") && !html.contains("https://"), "the page names a network address");
        // The grid, the TMA plan of the row-major copy and the default GEMM are answered, under the keys the page
        // asks with.
        let boot = html.split("window.AXE_BOOT = ").nth(1).and_then(|rest| rest.split(";</script>").next()).unwrap();
        let boot: Value = serde_json::from_str(boot).unwrap();
        let responses = boot["responses"].as_object().unwrap();
        let layout = "Swizzle(3,3,3) o S[(8,64):(64,1)]";
        let eval = &responses[&explore::request_key("eval", &json!({ "layout": layout, "shape": "8,64" }))];
        assert_eq!(eval["points"].as_array().map(Vec::len), Some(512));
        let mut tma = eval["tma_defaults"].clone();
        for (k, v) in [("shared", layout), ("dtype", "f16"), ("direction", "g2s")] {
            tma[k] = json!(v);
        }
        assert_eq!(responses[&explore::request_key("tma", &tma)]["plan"]["issues"].as_array().map(Vec::len), Some(1));
        let mma = &responses[&explore::request_key("mma", &explore::default_mma_request())];
        assert!(mma["plan"]["instruction"].as_str().unwrap().starts_with("mma.sync"));
    }

    #[test]
    fn text_in_the_data_cannot_close_the_script() {
        let page = page(&json!({ "x": "</script><!--" }));
        assert!(page.contains("\\u003c/script>\\u003c!--"));
    }

    #[test]
    fn a_bad_layout_is_refused_with_its_column() {
        let e = static_page("S[(8,4):(4@laneid,1@laneid]", "").unwrap_err();
        assert!(e.text().starts_with("layout: column 27:"), "{}", e.text());
    }
}
