//! The record as `--emit=launch` prints it: serde_json's output, laid out with one parameter, tensor map or buffer a
//! line (deterministic: keys in a fixed order).

use super::LaunchRecord;
use serde::Serialize;

/// serde_json's compact form with a space after each `,` and `:` (one object per line in the record).
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

/// `value` as one line of JSON.
fn inline<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
    let mut out = Vec::new();
    value.serialize(&mut serde_json::Serializer::with_formatter(&mut out, Spaced)).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// A list of objects, one a line at `indent`, closed at `indent - 2`; `[]` when empty.
fn lines<T: Serialize>(items: &[T], indent: usize) -> Result<String, String> {
    if items.is_empty() {
        return Ok("[]".to_string());
    }
    let pad = " ".repeat(indent);
    let rows: Vec<String> = items.iter().map(|i| inline(i).map(|t| format!("{pad}{t}"))).collect::<Result<_, _>>()?;
    Ok(format!("[\n{}\n{}]", rows.join(",\n"), " ".repeat(indent - 2)))
}

impl LaunchRecord {
    /// The record as `--emit=launch` prints it: serde_json's output, laid out with one parameter, tensor map or
    /// buffer a line.
    pub fn to_json(&self) -> Result<String, String> {
        let mut kernels = Vec::new();
        for k in &self.kernels {
            let fields = [
                ("name", inline(&k.name)?),
                ("grid", inline(&k.grid)?),
                ("block", inline(&k.block)?),
                ("cluster", inline(&k.cluster)?),
                ("dynamic_shared_bytes", inline(&k.dynamic_shared_bytes)?),
                ("params", lines(&k.params, 8)?),
                ("tensor_maps", lines(&k.tensor_maps, 8)?),
                ("symmetric", lines(&k.symmetric, 8)?),
                ("views", lines(&k.views, 8)?),
                ("preconditions", inline(&k.preconditions)?),
            ];
            let body: Vec<String> = fields.iter().map(|(key, value)| format!("      \"{key}\": {value}")).collect();
            kernels.push(format!("    {{\n{}\n    }}", body.join(",\n")));
        }
        Ok(format!("{{\n  \"chip\": {},\n  \"kernels\": [\n{}\n  ]\n}}\n", inline(&self.chip)?, kernels.join(",\n")))
    }
}
