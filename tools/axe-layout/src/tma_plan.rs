//! `axe-layout tma-plan`: the TMA descriptor and issues for a copy between a global and a shared region
//! (paper section 3.4; the planner is `axe_layout::tma`).

use crate::cli::{layout_arg, region_opt, shape_opt, to_json, Args, CliError, Command};
use axe_layout::tma::{
    plan, plan_multicast, Cluster, Direction, ElemType, L2Promotion, MulticastPlan, OobFill, TmaOptions, TmaPlan,
    TmaRequest,
};
use axe_layout::Layout;
use serde::Serialize;

/// The `tma-plan` subcommand.
pub const COMMAND: Command = Command {
    name: "tma-plan",
    usage: "tma-plan --global L --global-shape S --global-region R --shared L --shared-shape S --shared-region R \
            --dtype T [--direction g2s|s2g] [--l2-promotion none|64B|128B|256B] [--oob-fill zero|nan] \
            [--cluster X[,Y[,Z]]] [--json]",
    about: "the cuTensorMapEncodeTiled fields and one cp.async.bulk.tensor issue per box for a TMA copy",
    help: "Plans a TMA copy of the global region into the shared region (g2s, the default) or back (s2g). The\n\
           k-th element of one region (row-major over its extents) pairs with the k-th of the other.\n\
           --dtype: u8 i8 f8e4m3 f8e5m2 u16 i16 f16 bf16 u32 i32 f32 tf32 u64 i64 f64\n\
           --shared may be a CUDA swizzle composed with a layout, e.g. 'Swizzle(3,3,3) o S[(128,64):(64,1)]'.\n\
           Regions are half-open begin:end per dimension. The global tensor's base is address 0; issue offsets\n\
           are bytes from the shared tensor's base, which must be aligned to the printed alignment.\n\
           --json: {\"dtype\", \"rank\", \"global_dims\", \"global_strides_bytes\", \"box_dims\", \"element_strides\",\n\
           \"interleave\", \"swizzle\", \"l2_promotion\", \"oob_fill\", \"issues\": [{\"coordinates\": [...],\n\
           \"smem_offset_bytes\": n}, ...]}: arrays innermost dimension first (as cuTensorMapEncodeTiled takes\n\
           them), enums numbered as the CUDA driver numbers them; \"global_offset_bytes\" is added only when the\n\
           global layout has a non-zero offset.\n\
           --cluster X,Y,Z: a multicast load into a cluster of XxYxZ CTAs: the shared layout's replica (or offset)\n\
           over cbx/cby/cbz names the receiving CTAs; adds \"multicast\": {\"cta_mask\", \"ctas\", \"issuer\" (the\n\
           %cluster_ctarank issuing each issue), \"form\" (\"split\" among the CTAs or \"single\")} to the JSON.\n\
           A refusal prints 'tma: <stage> stage: ...' or 'tma: <rule> rule: ...' on stderr and exits with 1.\n",
    positional: &[],
    values: &[
        "global",
        "global-shape",
        "global-region",
        "shared",
        "shared-shape",
        "shared-region",
        "dtype",
        "direction",
        "l2-promotion",
        "oob-fill",
        "cluster",
    ],
    switches: &[],
    run,
};

/// The `--json` object.
#[derive(Serialize)]
pub struct PlanJson {
    dtype: u32,
    rank: u32,
    global_dims: Vec<u64>,
    global_strides_bytes: Vec<u64>,
    box_dims: Vec<u32>,
    element_strides: Vec<u32>,
    interleave: u32,
    swizzle: u32,
    l2_promotion: u32,
    oob_fill: u32,
    issues: Vec<IssueJson>,
    #[serde(skip_serializing_if = "is_zero")]
    global_offset_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    multicast: Option<MulticastJson>,
}

/// The multicast part of [`PlanJson`] (with `--cluster`).
#[derive(Serialize)]
pub struct MulticastJson {
    cta_mask: u16,
    ctas: Vec<u32>,
    issuer: Vec<u32>,
    form: &'static str,
}

/// One issue in [`PlanJson`].
#[derive(Serialize)]
pub struct IssueJson {
    coordinates: Vec<i64>,
    smem_offset_bytes: i64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

fn run(args: &Args) -> Result<String, CliError> {
    if args.value("cluster").is_some() {
        let m = multicast_of(args)?;
        return if args.json() {
            let mut j = json(&m.plan);
            j.multicast = Some(MulticastJson {
                cta_mask: m.cta_mask,
                ctas: m.ctas.clone(),
                issuer: m.issuer.clone(),
                form: m.form.name(),
            });
            to_json(&j)
        } else {
            let mut s = text(&m.plan);
            s.push_str(&format!(
                "multicast::cluster: ctaMask {:#06x} (CTAs {}); {}; every CTA's mbarrier expects {} bytes\n",
                m.cta_mask,
                list(&m.ctas),
                match m.form.name() {
                    "split" => "the CTAs split the boxes, each issuing its share",
                    _ => "one CTA issues every box",
                },
                m.plan.total_bytes()
            ));
            s.push_str(&format!("  issuer per issue      {}\n", list(&m.issuer)));
            Ok(s)
        };
    }
    let p = plan_of(args)?;
    if args.json() {
        to_json(&json(&p))
    } else {
        Ok(text(&p))
    }
}

/// The parsed operands of a `tma-plan` command line.
struct Parsed {
    global: Layout,
    global_shape: Vec<i64>,
    global_region: Vec<(i64, i64)>,
    shared: Layout,
    shared_shape: Vec<i64>,
    shared_region: Vec<(i64, i64)>,
    dtype: ElemType,
    direction: Direction,
    options: TmaOptions,
}

impl Parsed {
    fn request(&self) -> TmaRequest<'_> {
        TmaRequest {
            global: &self.global,
            global_shape: &self.global_shape,
            global_region: &self.global_region,
            shared: &self.shared,
            shared_shape: &self.shared_shape,
            shared_region: &self.shared_region,
            dtype: self.dtype,
            direction: self.direction,
            options: self.options,
        }
    }
}

/// The multicast plan of a `tma-plan --cluster X,Y,Z` command line.
pub fn multicast_of(args: &Args) -> Result<MulticastPlan, CliError> {
    let text = args.required("cluster")?;
    let dims: Vec<i64> = shape_opt(args, "cluster")?;
    if dims.is_empty() || dims.len() > 3 {
        return Err(CliError::Failed(format!("--cluster: expected 1 to 3 CTA counts (X,Y,Z), got '{text}'")));
    }
    let mut cluster = [1i64; 3];
    cluster[..dims.len()].copy_from_slice(&dims);
    let p = parsed(args)?;
    plan_multicast(&p.request(), &[], &[], Cluster { dims: cluster }).map_err(|e| CliError::Failed(e.to_string()))
}

/// The plan of a parsed `tma-plan` command line (shared with the explorer's `/api/tma`).
pub fn plan_of(args: &Args) -> Result<TmaPlan, CliError> {
    plan(&parsed(args)?.request()).map_err(|e| CliError::Failed(e.to_string()))
}

fn parsed(args: &Args) -> Result<Parsed, CliError> {
    let global = layout_arg("--global", args.required("global")?)?;
    let global_shape = shape_opt(args, "global-shape")?;
    let global_region = region_opt(args, "global-region")?;
    let shared = layout_arg("--shared", args.required("shared")?)?;
    let shared_shape = shape_opt(args, "shared-shape")?;
    let shared_region = region_opt(args, "shared-region")?;
    let dtype_text = args.required("dtype")?;
    let dtype = ElemType::from_name(dtype_text).ok_or_else(|| {
        let names: Vec<&str> = ElemType::ALL.iter().map(|t| t.name()).collect();
        CliError::Failed(format!("--dtype: unknown element type '{dtype_text}' (one of {})", names.join(", ")))
    })?;
    let direction = match args.value("direction") {
        None => Direction::G2S,
        Some(t) => Direction::from_name(t)
            .ok_or_else(|| CliError::Failed(format!("--direction: expected g2s or s2g, got '{t}'")))?,
    };
    let mut options = TmaOptions::default();
    if let Some(t) = args.value("l2-promotion") {
        options.l2_promotion = L2Promotion::from_name(t)
            .ok_or_else(|| CliError::Failed(format!("--l2-promotion: expected none, 64B, 128B or 256B, got '{t}'")))?;
    }
    if let Some(t) = args.value("oob-fill") {
        options.oob_fill = match t {
            "zero" | "none" | "0" => OobFill::None,
            "nan" | "1" => OobFill::NanRequestZeroFma,
            _ => return Err(CliError::Failed(format!("--oob-fill: expected zero or nan, got '{t}'"))),
        };
    }
    for (what, layout, shape) in
        [("--global-shape", &global, &global_shape), ("--shared-shape", &shared, &shared_shape)]
    {
        layout.admits(shape).map_err(|e| CliError::Failed(format!("{what}: {}", e.message)))?;
    }
    Ok(Parsed { global, global_shape, global_region, shared, shared_shape, shared_region, dtype, direction, options })
}

/// The `--json` object of a plan.
pub fn json(p: &TmaPlan) -> PlanJson {
    let d = &p.desc;
    PlanJson {
        dtype: d.data_type.code(),
        rank: d.rank,
        global_dims: d.global_dims.clone(),
        global_strides_bytes: d.global_strides_bytes.clone(),
        box_dims: d.box_dims.clone(),
        element_strides: d.element_strides.clone(),
        interleave: d.interleave as u32,
        swizzle: d.swizzle as u32,
        l2_promotion: d.l2_promotion as u32,
        oob_fill: d.oob_fill as u32,
        issues: p
            .issues
            .iter()
            .map(|i| IssueJson { coordinates: i.coordinates.clone(), smem_offset_bytes: i.smem_offset_bytes })
            .collect(),
        global_offset_bytes: p.global_offset_bytes,
        multicast: None,
    }
}

fn list<T: std::fmt::Display>(v: &[T]) -> String {
    format!("[{}]", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
}

/// The text the command prints without `--json`.
pub fn text(p: &TmaPlan) -> String {
    let d = &p.desc;
    let promoted = if d.data_type != p.elem.tensor_map_type() { " (promoted)" } else { "" };
    let mut s = format!(
        "TMA {} copy of {}: {} issue(s) of {} bytes ({} bytes in all)\n",
        p.direction.name(),
        p.elem,
        p.issues.len(),
        p.box_bytes,
        p.total_bytes()
    );
    s.push_str("cuTensorMapEncodeTiled (arrays innermost dimension first):\n");
    s.push_str(&format!("  dtype                 {} ({}){promoted}\n", d.data_type.code(), d.data_type.name()));
    s.push_str(&format!("  rank                  {}\n", d.rank));
    s.push_str(&format!("  global_dims           {}\n", list(&d.global_dims)));
    s.push_str(&format!("  global_strides_bytes  {}\n", list(&d.global_strides_bytes)));
    s.push_str(&format!("  box_dims              {}\n", list(&d.box_dims)));
    s.push_str(&format!("  element_strides       {}\n", list(&d.element_strides)));
    s.push_str(&format!("  interleave            {} ({:?})\n", d.interleave as u32, d.interleave));
    s.push_str(&format!("  swizzle               {} ({})\n", d.swizzle as u32, d.swizzle.name()));
    s.push_str(&format!("  l2_promotion          {} ({:?})\n", d.l2_promotion as u32, d.l2_promotion));
    s.push_str(&format!("  oob_fill              {} ({:?})\n", d.oob_fill as u32, d.oob_fill));
    s.push_str(&format!("  global address        base + {} bytes\n", p.global_offset_bytes));
    s.push_str(&format!("shared base alignment   {} bytes\n", p.shared_base_alignment_bytes));
    s.push_str("issues:\n");
    for (i, issue) in p.issues.iter().enumerate() {
        s.push_str(&format!(
            "  {i}: coordinates {} smem_offset_bytes {}\n",
            list(&issue.coordinates),
            issue.smem_offset_bytes
        ));
    }
    s
}
