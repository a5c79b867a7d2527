//! `axe-layout from-placements`, `to-placements` and `collective-plan`: distributed tensors on a device mesh
//! (DTensor placements, JAX PartitionSpecs) and the collectives between them; the work is
//! `axe_layout::distributed`.

use crate::cli::{layout_arg, shape_opt, to_json, Args, CliError, Command};
use axe_layout::distributed::collective::{plan, CollectivePlan, Slice};
use axe_layout::distributed::placement::{placements_text, Distribution};
use axe_layout::distributed::{
    from_placements_with, from_spec, parse_placements_for, parse_spec, DistLayout, LocalBuffers, Mesh, Placement,
    ReduceOp,
};
use axe_layout::notation::parse_shape;
use axe_layout::Axis;
use serde_json::{json, Value};

/// The `from-placements` subcommand.
pub const FROM_PLACEMENTS: Command = Command {
    name: "from-placements",
    usage: "from-placements --mesh M --shape S (--placements P | --spec SPEC) [--padded-local] [--json]",
    about: "the Axe layout of a DTensor (placements) or a JAX array (PartitionSpec) on a device mesh",
    help: "Prints the layout of the distributed tensor: per dimension the device iters of the mesh axes that\n\
           split it (outer first), then the local extent on m; the local tiles are row-major; mesh axes that split\n\
           nothing are replica iters. Partial(op) is a replica iter plus the marker 'partial: op@axis' (a pending\n\
           reduction is a property of the values, not of the places). Uneven Shard(d) follows torch.chunk\n\
           (chunks of ceil(n/k), the last ranks get fewer or none): the layout is over the 'padded shape'\n\
           ceil(n/k)*k and coordinates >= n are padding. Under several mesh axes DTensor chunks each chunk again:\n\
           accepted when that equals one torch.chunk over all of them (7 over 2x2: 2,2,2,1), else the\n\
           uneven-nested rule (6 over 2x2: 2,1,2,1). JAX specs must divide evenly (jax-uneven rule).\n\
           The local offsets are DTensor's to_local() (row-major in each rank's own shape); a short piece inside a\n\
           dimension of local extent > 1 (Shard(1) of 3x10 on 4 ranks: 3x3, ..., 3x1) makes the strides depend on\n\
           the rank: local-strides rule, unless --padded-local (every rank's buffer is the padded local tile).\n\
           --mesh 2,4: extents on the device axes gpuid (1-D) or gpuid_x, gpuid_y (2-D; gpuid_z 3-D), ranks\n\
           row-major (rank = x * 4 + y); --mesh x=2,y=4 (or --mesh-axes) names the dimensions, on the same axes\n\
           --placements 'Shard(0),Replicate()': one per mesh dimension: Shard(d), Replicate(), Partial(),\n\
           Partial(sum), Partial(max), as DTensor prints them too: Shard(dim=0), Shard(-1), the tuple\n\
           '(Shard(dim=0), Replicate())', S(0), R, P   --spec \"P('x', None)\" or \"P(('x','y'), None)\"\n\
           --json: {\"layout\", \"shape\", \"padded_shape\", \"local_shape\" (the layout's local tile),\n\
           \"local_shapes\" (per rank, row-major: DTensor's to_local() shape), \"partial\": [{\"axis\", \"op\"}],\n\
           \"mesh\": [{\"name\", \"axis\", \"extent\"}]}\n\
           A refusal prints '<rule> rule: ...' and exits with 1.\n",
    positional: &[],
    values: &["mesh", "mesh-axes", "shape", "placements", "spec"],
    switches: &["padded-local"],
    run: run_from,
};

/// The `to-placements` subcommand.
pub const TO_PLACEMENTS: Command = Command {
    name: "to-placements",
    usage: "to-placements LAYOUT --mesh M --shape S [--padded-shape P] [--partial OP@AXIS,...] [--padded-local] \
            [--json]",
    about: "the DTensor placements and JAX PartitionSpec of a distributed layout, or why it has none",
    help: "The inverse of from-placements. The layout must be over --padded-shape (default: --shape); --partial\n\
           sum@gpuid_y marks the values along a replicated mesh axis as pending sums. A layout no placement\n\
           expresses is refused with its rule (exit 1): swizzle, offset, axis, group, interleaved (a device iter\n\
           inside a local iter: a cyclic split), device-iter (not a whole mesh axis at stride 1), device-twice,\n\
           local-row-major, replica, unused-axis (the tensor lives at coordinate 0 of a mesh axis), padding (not\n\
           torch.chunk's), uneven-nested (not DTensor's nested split), local-strides (the local tiles are not\n\
           DTensor's to_local(); --padded-local: the buffers are the padded tiles), partial. Each form may still be refused alone: 'placements: none (dtensor-order rule:\n\
           ...)' when a dimension is split by mesh axes out of mesh order, 'spec: none (jax-partial | jax-uneven\n\
           rule: ...)'. A mesh axis of extent 1 reads back as Replicate().\n\
           --mesh 2,4: extents on the device axes gpuid (1-D) or gpuid_x, gpuid_y (2-D; gpuid_z 3-D), ranks\n\
           row-major (rank = x * 4 + y); --mesh x=2,y=4 (or --mesh-axes) names the dimensions, on the same axes\n\
           --json: {\"placements\": [\"Shard(0)\", ...] or null, \"placements_error\": null or text, \"spec\": text or\n\
           null, \"spec_error\": null or text, \"local_shape\": [...], \"local_shapes\": [[...] per rank]}\n",
    positional: &["LAYOUT"],
    values: &["mesh", "mesh-axes", "shape", "padded-shape", "partial"],
    switches: &["padded-local"],
    run: run_to,
};

/// The `collective-plan` subcommand.
pub const COLLECTIVE_PLAN: Command = Command {
    name: "collective-plan",
    usage: "collective-plan (--src L | --src-placements P) (--dst L | --dst-placements P) --shape S --mesh M \
            [--src-padded P] [--dst-padded P] [--reduce sum|max] [--partial-axes A,...] [--padded-local] [--json]",
    about: "the collective (all-gather, reduce-scatter, ...) that copies one distributed layout into another",
    help: "Plans dst = src between two distributed layouts of one tensor (or dst = the sum/max over the source's\n\
           partial ranks): per rank, the steps it initiates, in order. Copies are puts by the holder ('copy' when\n\
           local), each destination element written once; reductions are gets by the destination rank, the first\n\
           contribution overwriting ('get', or 'copy' from itself), the rest accumulating ('get-reduce', local\n\
           'reduce'), overwrites before accumulations; then by ring distance (peer - rank) mod ranks. The holder of\n\
           an element is the replica agreeing with the destination rank on the most mesh coordinates, then the\n\
           nearest in ring order. Buffers are each rank's local tiles on m, in elements.\n\
           --mesh 2,4: extents on the device axes gpuid (1-D) or gpuid_x, gpuid_y (2-D; gpuid_z 3-D), ranks\n\
           row-major (rank = x * 4 + y); --mesh x=2,y=4 (or --mesh-axes) names the dimensions, on the same axes\n\
           --reduce sum|max: the source's values along --partial-axes (default: every mesh axis it replicates\n\
           over) are partial; a Partial in --src-placements says the same.\n\
           --padded-local: placements whose short pieces make DTensor's local strides rank-dependent are laid out\n\
           in padded local tiles (from-placements' local-strides rule) instead of refused.\n\
           kind: local, all-gather, reduce-scatter, all-reduce, broadcast (root), reduce (root), all-to-all,\n\
           point-to-point (named from the mesh axes whose placement changes, kept only if every transfer stays\n\
           within their groups).\n\
           --json: {\"kind\", \"root\": null or rank, \"reduce\": null or \"sum\"/\"max\", \"partial_axes\": [...],\n\
           \"changes\": [{\"axis\", \"name\", \"from\", \"to\"}], \"mesh\": [{\"name\", \"axis\", \"extent\"}],\n\
           \"src_buffer_elements\", \"dst_buffer_elements\", \"ranks\": [{\"rank\", \"coord\": [...], \"steps\": [{\"op\":\n\
           \"copy\"|\"put\"|\"get\"|\"get-reduce\"|\"reduce\", \"src_rank\", \"dst_rank\", \"elements\", \"slices\":\n\
           [{\"logical\": [coordinate], \"logical_stride\", \"src_offset\", \"dst_offset\", \"len\", \"count\",\n\
           \"src_stride\", \"dst_stride\"}]}]}]}: repetition c < count, element j < len of a slice is logical flat\n\
           index flatten(logical) + c*logical_stride + j (row-major), source offset src_offset + c*src_stride + j,\n\
           destination offset dst_offset + c*dst_stride + j.\n\
           A refusal prints '<rule> rule: ...' and exits with 1: shape, axis, device-range, buffer, src-alias,\n\
           dst-alias, partial, dst-partial, size.\n",
    positional: &[],
    values: &[
        "src",
        "dst",
        "src-placements",
        "dst-placements",
        "shape",
        "mesh",
        "mesh-axes",
        "src-padded",
        "dst-padded",
        "reduce",
        "partial-axes",
    ],
    switches: &["padded-local"],
    run: run_plan,
};

fn failed(what: &str) -> impl Fn(axe_layout::LayoutError) -> CliError + '_ {
    move |e| CliError::Failed(format!("{what}: {}", e.message))
}

fn mesh_arg(args: &Args) -> Result<Mesh, CliError> {
    let (name, text) = match (args.value("mesh"), args.value("mesh-axes")) {
        (Some(_), Some(_)) => return Err(CliError::Usage("give --mesh or --mesh-axes, not both".into())),
        (Some(t), None) => ("--mesh", t),
        (None, Some(t)) => ("--mesh-axes", t),
        (None, None) => return Err(CliError::Usage("missing option --mesh".into())),
    };
    Mesh::parse(text).map_err(failed(name))
}

fn mesh_json(mesh: &Mesh) -> Value {
    Value::Array(
        mesh.axes().iter().map(|a| json!({"name": a.name, "axis": a.axis.name(), "extent": a.extent})).collect(),
    )
}

fn dims_text(v: &[i64]) -> String {
    v.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

fn partial_text(partial: &[(Axis, ReduceOp)]) -> String {
    partial.iter().map(|(a, op)| format!("{}@{a}", op.name())).collect::<Vec<_>>().join(",")
}

/// The local tile's shape: the padded extent over the product of the mesh extents that split each dimension.
fn local_shape(mesh: &Mesh, d: &DistLayout) -> Option<Vec<i64>> {
    let dist = Distribution::of_layout(mesh, d).ok()?;
    Some(
        dist.dims
            .iter()
            .zip(&d.padded)
            .map(|(ms, p)| p / ms.iter().map(|&i| mesh.axes()[i].extent).product::<i64>())
            .collect(),
    )
}

/// Each rank's DTensor local shape (row-major over the mesh).
fn local_shapes(mesh: &Mesh, d: &DistLayout) -> Vec<Vec<i64>> {
    Distribution::of_layout(mesh, d).map(|dist| dist.local_shapes(mesh, &d.shape)).unwrap_or_default()
}

/// `rank local shapes (to_local): 3,3 3,3 3,3 3,1` when some rank's own shape is not the local tile.
fn rank_shapes_text(tile: &[i64], shapes: &[Vec<i64>]) -> String {
    if shapes.iter().all(|s| s == tile) {
        return String::new();
    }
    let each: Vec<String> = shapes.iter().map(|s| dims_text(s)).collect();
    format!("rank local shapes (to_local): {}\n", each.join(" "))
}

fn local_buffers(args: &Args) -> LocalBuffers {
    if args.flag("padded-local") {
        LocalBuffers::Padded
    } else {
        LocalBuffers::ToLocal
    }
}

fn run_from(args: &Args) -> Result<String, CliError> {
    let mesh = mesh_arg(args)?;
    let shape = shape_opt(args, "shape")?;
    let d = match (args.value("placements"), args.value("spec")) {
        (Some(p), None) => {
            let p = parse_placements_for(p, shape.len()).map_err(failed("--placements"))?;
            from_placements_with(&mesh, &shape, &p, local_buffers(args)).map_err(failed("from-placements"))?
        }
        (None, Some(s)) => {
            let s = parse_spec(s).map_err(failed("--spec"))?;
            from_spec(&mesh, &shape, &s).map_err(failed("from-placements"))?
        }
        _ => return Err(CliError::Usage("give exactly one of --placements and --spec".into())),
    };
    let local = local_shape(&mesh, &d).unwrap_or_default();
    let shapes = local_shapes(&mesh, &d);
    if args.json() {
        let partial: Vec<Value> = d.partial.iter().map(|(a, op)| json!({"axis": a.name(), "op": op.name()})).collect();
        return to_json(&json!({
            "layout": d.layout.to_string(), "shape": d.shape, "padded_shape": d.padded, "local_shape": local,
            "local_shapes": shapes, "partial": partial, "mesh": mesh_json(&mesh),
        }));
    }
    let mut out = format!("layout: {}\nshape: {}\n", d.layout, dims_text(&d.shape));
    if d.padded != d.shape {
        out.push_str(&format!("padded shape: {} (torch.chunk)\n", dims_text(&d.padded)));
    }
    out.push_str(&format!("local shape: {}\n", dims_text(&local)));
    out.push_str(&rank_shapes_text(&local, &shapes));
    if d.local == LocalBuffers::Padded {
        out.push_str("local buffers: padded tiles (not DTensor's to_local())\n");
    }
    if !d.partial.is_empty() {
        out.push_str(&format!("partial: {}\n", partial_text(&d.partial)));
    }
    Ok(out)
}

fn partial_arg(text: &str, op_name: &str) -> Result<Vec<(Axis, ReduceOp)>, CliError> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (op, axis) = match part.split_once('@') {
            Some((op, axis)) => (op, axis),
            None if !op_name.is_empty() => (op_name, part),
            None => return Err(CliError::Failed(format!("--partial {part}: expected OP@AXIS (sum@gpuid_y)"))),
        };
        let op = ReduceOp::from_name(op)
            .ok_or_else(|| CliError::Failed(format!("--partial {part}: unknown reduction '{op}' (sum, max)")))?;
        out.push((Axis::named(axis).map_err(failed("--partial"))?, op));
    }
    Ok(out)
}

fn dist_of(layout_text: &str, what: &str, shape: &[i64], padded: Option<&str>) -> Result<DistLayout, CliError> {
    let layout = layout_arg(what, layout_text)?;
    let padded = match padded {
        Some(t) => parse_shape(t).map_err(failed(what))?,
        None => shape.to_vec(),
    };
    if padded == shape && layout.admits(shape).is_err() {
        return Err(CliError::Failed(format!(
            "{what}: shape rule: the layout maps {} elements but shape {} has {}; an uneven sharding needs its padded \
             shape (from-placements prints it)",
            layout.size(),
            dims_text(shape),
            shape
                .iter()
                .try_fold(1i64, |n, &d| n.checked_mul(d))
                .map_or("more than 2^63".to_string(), |n| n.to_string())
        )));
    }
    DistLayout::new(layout, shape.to_vec(), padded, Vec::new()).map_err(failed(what))
}

fn run_to(args: &Args) -> Result<String, CliError> {
    let mesh = mesh_arg(args)?;
    let shape = shape_opt(args, "shape")?;
    let mut d = dist_of(args.arg(0), "LAYOUT", &shape, args.value("padded-shape"))?;
    d.partial = partial_arg(args.value("partial").unwrap_or(""), "")?;
    d.local = local_buffers(args);
    let dist = Distribution::of_dtensor(&mesh, &d).map_err(failed("to-placements"))?;
    let placements = dist.placements(&mesh);
    let spec = dist.spec(&mesh, &d.shape, &d.padded);
    let local = local_shape(&mesh, &d).unwrap_or_default();
    let shapes = dist.local_shapes(&mesh, &d.shape);
    if args.json() {
        let (p, pe) = match &placements {
            Ok(p) => (json!(p.iter().map(Placement::to_string).collect::<Vec<_>>()), Value::Null),
            Err(e) => (Value::Null, json!(e.message)),
        };
        let (s, se) = match &spec {
            Ok(s) => (json!(s.to_string()), Value::Null),
            Err(e) => (Value::Null, json!(e.message)),
        };
        return to_json(&json!({
            "placements": p, "placements_error": pe, "spec": s, "spec_error": se, "local_shape": local,
            "local_shapes": shapes,
        }));
    }
    let p = match &placements {
        Ok(p) => placements_text(p),
        Err(e) => format!("none ({})", e.message),
    };
    let s = match &spec {
        Ok(s) => s.to_string(),
        Err(e) => format!("none ({})", e.message),
    };
    Ok(format!("placements: {p}\nspec: {s}\nlocal shape: {}\n{}", dims_text(&local), rank_shapes_text(&local, &shapes)))
}

fn side(args: &Args, role: &str, mesh: &Mesh, shape: &[i64]) -> Result<DistLayout, CliError> {
    let key = format!("{role}-placements");
    match (args.value(role), args.value(&key)) {
        (Some(l), None) => dist_of(l, &format!("--{role}"), shape, args.value(&format!("{role}-padded"))),
        (None, Some(p)) => {
            let p = parse_placements_for(p, shape.len()).map_err(failed(&format!("--{key}")))?;
            from_placements_with(mesh, shape, &p, local_buffers(args)).map_err(failed(&format!("--{key}")))
        }
        _ => Err(CliError::Usage(format!("give exactly one of --{role} and --{key}"))),
    }
}

fn slice_text(s: &Slice) -> String {
    let mut t = format!("logical [{}] src {} dst {} len {}", dims_text(&s.logical), s.src_offset, s.dst_offset, s.len);
    if s.count > 1 {
        t.push_str(&format!(
            " x{} (strides logical {}, src {}, dst {})",
            s.count, s.logical_stride, s.src_stride, s.dst_stride
        ));
    }
    t
}

fn plan_text(mesh: &Mesh, p: &CollectivePlan) -> String {
    let mut out = format!("collective: {}", p.kind.name());
    if let Some(root) = p.root {
        out.push_str(&format!(" from root {root}"));
    }
    if let Some(op) = p.reduce {
        let axes: Vec<&str> = p.partial_axes.iter().map(|a| a.name()).collect();
        out.push_str(&format!(" ({} over {})", op.name(), axes.join(",")));
    }
    out.push('\n');
    for c in &p.changes {
        out.push_str(&format!("  {}: {} -> {}\n", c.name, c.from, c.to));
    }
    out.push_str(&format!(
        "mesh: {} ({} ranks, row-major); per rank buffers: src {} dst {} elements\n",
        mesh.text(),
        mesh.ranks(),
        p.src_elements,
        p.dst_elements
    ));
    for r in &p.ranks {
        out.push_str(&format!("rank {} [{}]:\n", r.rank, dims_text(&r.coord)));
        for s in &r.steps {
            let peer = match s.op.name() {
                "put" => format!(" -> {}", s.dst_rank),
                "get" | "get-reduce" => format!(" <- {}", s.src_rank),
                _ => String::new(),
            };
            out.push_str(&format!("  {}{peer} ({} elements):", s.op.name(), s.elements));
            if let [one] = s.slices.as_slice() {
                out.push_str(&format!(" {}\n", slice_text(one)));
            } else {
                out.push('\n');
                for sl in &s.slices {
                    out.push_str(&format!("    {}\n", slice_text(sl)));
                }
            }
        }
    }
    out
}

fn plan_json(mesh: &Mesh, p: &CollectivePlan) -> Value {
    let slice = |s: &Slice| {
        json!({"logical": s.logical, "logical_stride": s.logical_stride, "src_offset": s.src_offset,
               "dst_offset": s.dst_offset, "len": s.len, "count": s.count, "src_stride": s.src_stride,
               "dst_stride": s.dst_stride})
    };
    let ranks: Vec<Value> = p
        .ranks
        .iter()
        .map(|r| {
            let steps: Vec<Value> = r
                .steps
                .iter()
                .map(|s| {
                    json!({"op": s.op.name(), "src_rank": s.src_rank, "dst_rank": s.dst_rank, "elements": s.elements,
                           "slices": s.slices.iter().map(slice).collect::<Vec<_>>()})
                })
                .collect();
            json!({"rank": r.rank, "coord": r.coord, "steps": steps})
        })
        .collect();
    json!({
        "kind": p.kind.name(),
        "root": p.root,
        "reduce": p.reduce.map(ReduceOp::name),
        "partial_axes": p.partial_axes.iter().map(|a| a.name()).collect::<Vec<_>>(),
        "changes": p.changes.iter().map(|c| json!({"axis": c.axis.name(), "name": c.name, "from": c.from, "to": c.to}))
            .collect::<Vec<_>>(),
        "mesh": mesh_json(mesh),
        "src_buffer_elements": p.src_elements,
        "dst_buffer_elements": p.dst_elements,
        "ranks": ranks,
    })
}

fn run_plan(args: &Args) -> Result<String, CliError> {
    let mesh = mesh_arg(args)?;
    let shape = shape_opt(args, "shape")?;
    let mut src = side(args, "src", &mesh, &shape)?;
    let dst = side(args, "dst", &mesh, &shape)?;
    if let Some(op) = args.value("reduce") {
        let op = ReduceOp::from_name(op)
            .ok_or_else(|| CliError::Failed(format!("--reduce: unknown reduction '{op}' (sum, max)")))?;
        if !src.partial.is_empty() {
            return Err(CliError::Failed("--reduce: the source placements already have a Partial".into()));
        }
        src.partial = match args.value("partial-axes") {
            Some(axes) => partial_arg(axes, op.name())?,
            None => {
                let mut axes: Vec<Axis> = src
                    .layout
                    .tile()
                    .replica()
                    .iter()
                    .filter(|it| it.extent > 1 && mesh.index_of(it.axis).is_some())
                    .map(|it| it.axis)
                    .collect();
                axes.sort();
                axes.dedup();
                axes.into_iter().map(|a| (a, op)).collect()
            }
        };
        if src.partial.is_empty() {
            return Err(CliError::Failed(
                "collective-plan: partial rule: --reduce needs the source replicated over a mesh axis (its partial \
                 values); the source has no device replica"
                    .into(),
            ));
        }
    } else if args.value("partial-axes").is_some() {
        return Err(CliError::Usage("--partial-axes needs --reduce".into()));
    }
    let p = plan(&mesh, &src, &dst).map_err(failed("collective-plan"))?;
    if args.json() {
        return to_json(&plan_json(&mesh, &p));
    }
    Ok(plan_text(&mesh, &p))
}
