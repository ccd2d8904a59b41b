//! The two charts of a run, as SVG files drawn with plotters:
//!
//! - `roofline.svg`: GFLOP/s against arithmetic intensity (flop per byte the definition
//!   moves), both logarithmic; the device's FMA ceiling and bandwidth ceilings as lines, one
//!   filled circle per routine and size on the GPU (data resident), labelled once per
//!   routine, and one triangle per routine and size for the CPU BLAS;
//! - `speedup.svg`: speed-up over the CPU BLAS against size, one panel per BLAS level, one
//!   colour per routine, resident (solid line, circles) and end to end (dashed line,
//!   triangles), and the break-even line at 1x.
//!
//! Markers are the only circles and polygons in the files (legends use lines and text), so
//! a check can count them against the rows (`bench/check_charts.py`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::records::{DeviceLine, RowLine, Run};

const FONT: &str = "sans-serif";

/// The routines in the order of the table: their colour index and BLAS level.
const ROUTINES: [(&str, u8); 24] = [
    ("saxpy", 1),
    ("sdot", 1),
    ("sgemv", 2),
    ("sgbmv", 2),
    ("ssymv", 2),
    ("ssbmv", 2),
    ("sspmv", 2),
    ("strmv", 2),
    ("stbmv", 2),
    ("stpmv", 2),
    ("strsv", 2),
    ("stbsv", 2),
    ("stpsv", 2),
    ("sger", 2),
    ("ssyr", 2),
    ("sspr", 2),
    ("ssyr2", 2),
    ("sspr2", 2),
    ("sgemm", 3),
    ("ssymm", 3),
    ("ssyrk", 3),
    ("ssyr2k", 3),
    ("strmm", 3),
    ("strsm", 3),
];

/// The level of a routine (the batched rows are level 3).
fn level(routine: &str) -> u8 {
    ROUTINES
        .iter()
        .find(|(r, _)| *r == routine)
        .map_or(3, |(_, l)| *l)
}

/// A distinct colour per routine, the same in both charts.
fn colour(routine: &str) -> RGBColor {
    const COLOURS: [RGBColor; 16] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
        RGBColor(0, 0, 128),
        RGBColor(128, 64, 0),
        RGBColor(0, 100, 0),
        RGBColor(218, 165, 32),
        RGBColor(40, 40, 40),
        RGBColor(255, 0, 255),
    ];
    let i = ROUTINES
        .iter()
        .filter(|(_, l)| *l == level(routine))
        .position(|(r, _)| *r == routine)
        .unwrap_or_else(|| {
            // Batched rows come after the level-3 routines.
            6 + usize::from(routine.ends_with("x1000"))
        });
    COLOURS[i % COLOURS.len()]
}

/// Estimated width in pixels of `text` at `size` (plotters' SVG text is laid out by the
/// viewer; 0.6 em per character covers the usual sans-serif fonts).
fn text_width(text: &str, size: f64) -> i32 {
    (text.chars().count() as f64 * size * 0.6).ceil() as i32
}

/// Writes both charts of `run` into `dir` (created if needed); returns their paths.
pub fn draw(run: &Run, dir: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let roof = dir.join("roofline.svg");
    let speed = dir.join("speedup.svg");
    roofline(run, &roof).map_err(|e| format!("{}: {e}", roof.display()))?;
    speedup(run, &speed).map_err(|e| format!("{}: {e}", speed.display()))?;
    Ok(vec![roof, speed])
}

/// A log axis range covering `values` with a margin, never empty.
fn log_range(values: impl Iterator<Item = f64>, lo_pad: f64, hi_pad: f64) -> std::ops::Range<f64> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        return 0.1..10.0;
    }
    (lo / lo_pad)..(hi * hi_pad)
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn roofline(run: &Run, path: &Path) -> DrawResult {
    let d = &run.device;
    let gpu: Vec<&RowLine> = run.timed("resident").collect();
    let cpu: Vec<&RowLine> = run.timed("cpu").collect();
    let points = |rows: &[&RowLine]| -> Vec<(f64, f64, String)> {
        rows.iter()
            .filter_map(|r| Some((r.intensity(), r.gflops?, r.routine.clone())))
            .collect()
    };
    let (g, c) = (points(&gpu), points(&cpu));
    let x = log_range(g.iter().chain(&c).map(|p| p.0), 2.0, 3.0);
    let y = log_range(
        g.iter().chain(&c).map(|p| p.1).chain([d.fma_gflops]),
        2.0,
        2.5,
    );
    let root = SVGBackend::new(path, (1200, 800)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "fragblas roofline: {} ({}, {})",
        short(&d.device),
        kind(d),
        d.date
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 20))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x.clone().log_scale(), y.clone().log_scale())?;
    chart
        .configure_mesh()
        .x_desc("arithmetic intensity (flop per byte the definition must move)")
        .y_desc("GFLOP/s")
        .label_style((FONT, 14))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    // Ceilings: the FMA rate flat, each bandwidth rising with intensity until it meets it.
    let ceilings = [
        (d.read_gbps, "read", RGBColor(200, 0, 0)),
        (d.copy_gbps, "copy", RGBColor(230, 120, 0)),
    ];
    chart.draw_series(LineSeries::new(
        [(x.start, d.fma_gflops), (x.end, d.fma_gflops)],
        BLACK.stroke_width(2),
    ))?;
    for (bw, _, col) in ceilings {
        let knee = d.fma_gflops / bw;
        chart.draw_series(LineSeries::new(
            [
                (x.start, x.start * bw),
                (knee.min(x.end), knee.min(x.end) * bw),
            ],
            col.stroke_width(2),
        ))?;
    }
    chart.draw_series(
        c.iter()
            .map(|(xi, yi, r)| TriangleMarker::new((*xi, *yi), 5, colour(r).mix(0.55).filled())),
    )?;
    chart.draw_series(
        g.iter()
            .map(|(xi, yi, r)| Circle::new((*xi, *yi), 4, colour(r).filled())),
    )?;
    // One label per routine, at its fastest GPU point, moved off earlier labels.
    let mut best: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for (xi, yi, r) in &g {
        let e = best.entry(r).or_insert((*xi, *yi));
        if *yi > e.1 {
            *e = (*xi, *yi);
        }
    }
    let mut placed: Vec<(i32, i32, i32, i32)> = Vec::new();
    let area = chart.plotting_area().get_pixel_range();
    let mut labels: Vec<(&str, (i32, i32))> = best
        .iter()
        .map(|(r, p)| (*r, chart.backend_coord(p)))
        .collect();
    labels.sort_by_key(|(_, (px, py))| (*px, -*py));
    for (r, (px, py)) in labels {
        let (w, h) = (text_width(r, 12.0), 14);
        let spot = label_spot((px, py), (w, h), &placed, (area.0.clone(), area.1.clone()));
        placed.push((spot.0, spot.1, spot.0 + w, spot.1 + h));
        let col = colour(r);
        let style = TextStyle::from((FONT, 12)).color(&col);
        if (spot.0 - px - 6).abs() > 2 || (spot.1 - py + h / 2).abs() > 2 {
            root.draw(&PathElement::new(
                vec![(px, py), (spot.0, spot.1 + h / 2)],
                colour(r).mix(0.5),
            ))?;
        }
        root.draw(&Text::new(r.to_string(), spot, style))?;
    }
    // Legend, in text and lines only, in the lower right of the plot.
    let lx = area.0.end - 330;
    let mut ly = area.1.end - 110;
    let entries: [(String, RGBColor, bool); 5] = [
        (
            "\u{25CF} fragblas, data on the GPU (resident)".into(),
            BLACK,
            false,
        ),
        (
            format!("\u{25B2} CPU BLAS ({} threads)", d.cpu_threads),
            RGBColor(120, 120, 120),
            false,
        ),
        (
            format!("FMA ceiling {:.0} GFLOP/s", d.fma_gflops),
            BLACK,
            true,
        ),
        (
            format!("read ceiling {:.0} GB/s", d.read_gbps),
            ceilings[0].2,
            true,
        ),
        (
            format!("copy ceiling {:.0} GB/s", d.copy_gbps),
            ceilings[1].2,
            true,
        ),
    ];
    root.draw(&PathElement::new(
        vec![
            (lx - 8, ly - 10),
            (area.0.end - 6, ly - 10),
            (area.0.end - 6, ly + 96),
            (lx - 8, ly + 96),
            (lx - 8, ly - 10),
        ],
        BLACK.mix(0.4),
    ))?;
    for (text, col, line) in entries {
        let tx = if line {
            root.draw(&PathElement::new(
                vec![(lx, ly + 7), (lx + 24, ly + 7)],
                col.stroke_width(2),
            ))?;
            lx + 30
        } else {
            lx
        };
        root.draw(&Text::new(
            text,
            (tx, ly),
            TextStyle::from((FONT, 13)).color(&col),
        ))?;
        ly += 20;
    }
    root.present()?;
    Ok(())
}

/// Where a label of size `(w, h)` for the marker at `p` goes: right of the marker if free,
/// else the nearest free spot above or below (then left), inside the plotting area.
fn label_spot(
    p: (i32, i32),
    (w, h): (i32, i32),
    placed: &[(i32, i32, i32, i32)],
    (xr, yr): (std::ops::Range<i32>, std::ops::Range<i32>),
) -> (i32, i32) {
    let free = |x: i32, y: i32| {
        x >= xr.start
            && x + w <= xr.end
            && y >= yr.start
            && y + h <= yr.end
            && placed
                .iter()
                .all(|&(a, b, c, d)| x + w <= a || x >= c || y + h <= b || y >= d)
    };
    for step in 0..40 {
        for dy in [step * (h + 1), -step * (h + 1)] {
            for x in [p.0 + 6, p.0 - 6 - w] {
                let y = p.1 - h / 2 + dy;
                if free(x, y) {
                    return (x, y);
                }
            }
        }
    }
    (p.0 + 6, p.1 - h / 2)
}

/// What kind of device a run measured, for chart titles.
fn kind(d: &DeviceLine) -> &'static str {
    if d.software {
        "software rasteriser"
    } else {
        "GPU"
    }
}

/// The device name without the driver's parenthesised details.
fn short(device: &str) -> &str {
    device.split(" (").next().unwrap_or(device)
}

fn speedup(run: &Run, path: &Path) -> DrawResult {
    let d = &run.device;
    let root = SVGBackend::new(path, (1500, 760)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "fragblas speed-up over the CPU BLAS: {} ({}, {}); solid line and circles: data \
         resident on the GPU; dashed line and triangles: end to end (upload, compute, download)",
        short(&d.device),
        kind(d),
        d.date
    );
    let root = root.titled(&title, (FONT, 15))?;
    // Speed-ups per routine, resident and end to end, by size.
    let cpu: BTreeMap<(&str, &str), f64> = run
        .timed("cpu")
        .map(|r| {
            (
                (r.routine.as_str(), r.size.as_str()),
                r.seconds.unwrap_or(0.0),
            )
        })
        .collect();
    let ratio = |r: &RowLine| {
        let c = cpu.get(&(r.routine.as_str(), r.size.as_str()))?;
        Some((r.order() as f64, c / r.seconds?))
    };
    let y = log_range(
        run.rows
            .iter()
            .filter(|r| r.mode != "cpu")
            .filter_map(|r| ratio(r).map(|p| p.1))
            .chain([1.0]),
        1.6,
        1.6,
    );
    let panels = root.split_evenly((1, 3));
    for (lv, panel) in (1u8..=3).zip(panels.iter()) {
        let rows: Vec<&RowLine> = run
            .rows
            .iter()
            .filter(|r| level(&r.routine) == lv && r.mode != "cpu")
            .collect();
        draw_panel(panel, lv, &rows, &ratio, y.clone())?;
    }
    root.present()?;
    Ok(())
}

fn draw_panel(
    panel: &DrawingArea<SVGBackend, Shift>,
    lv: u8,
    rows: &[&RowLine],
    ratio: &dyn Fn(&RowLine) -> Option<(f64, f64)>,
    y: std::ops::Range<f64>,
) -> DrawResult {
    let (top, legend) = panel.split_vertically(panel.dim_in_pixel().1 as i32 - 150);
    let x = log_range(rows.iter().map(|r| r.order() as f64), 1.5, 1.5);
    let what = match lv {
        1 => "level 1: vector length n",
        2 => "level 2: matrix order n",
        _ => "level 3: matrix order n",
    };
    let mut chart = ChartBuilder::on(&top)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(60)
        .build_cartesian_2d(x.clone().log_scale(), y.clone().log_scale())?;
    chart
        .configure_mesh()
        .x_desc(what)
        .y_desc("speed-up over the CPU BLAS (x)")
        .label_style((FONT, 13))
        .x_labels(8)
        .x_label_formatter(&|v| format_size(*v))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    chart.draw_series(LineSeries::new(
        [(x.start, 1.0), (x.end, 1.0)],
        BLACK.stroke_width(2),
    ))?;
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.routine.as_str()) {
            names.push(&r.routine);
        }
    }
    for name in &names {
        let col = colour(name);
        for (mode, dashed) in [("resident", false), ("e2e", true)] {
            let mut pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.routine == *name && r.mode == mode)
                .filter_map(|r| ratio(r))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            if dashed {
                chart.draw_series(DashedLineSeries::new(
                    pts.clone(),
                    6,
                    4,
                    col.stroke_width(2),
                ))?;
                chart.draw_series(
                    pts.iter()
                        .map(|p| TriangleMarker::new(*p, 5, col.mix(0.8).filled())),
                )?;
            } else {
                chart.draw_series(LineSeries::new(pts.clone(), col.stroke_width(2)))?;
                chart.draw_series(pts.iter().map(|p| Circle::new(*p, 4, col.filled())))?;
            }
        }
    }
    // Legend below the plot: a line and the name of each routine, in columns.
    let (lw, _) = legend.dim_in_pixel();
    let per_col = 6;
    let col_w = (lw as i32 - 80) / (names.len().div_ceil(per_col).max(1) as i32).max(1);
    for (i, name) in names.iter().enumerate() {
        let (cx, cy) = (
            70 + (i / per_col) as i32 * col_w,
            8 + (i % per_col) as i32 * 20,
        );
        legend.draw(&PathElement::new(
            vec![(cx, cy + 7), (cx + 22, cy + 7)],
            colour(name).stroke_width(3),
        ))?;
        legend.draw(&Text::new(name.to_string(), (cx + 28, cy), (FONT, 13)))?;
    }
    Ok(())
}

/// A size as a power of two where it is one (2^20), else as a number.
fn format_size(v: f64) -> String {
    let e = v.log2();
    if (e - e.round()).abs() < 1e-9 && v >= 1024.0 {
        format!("2^{}", e.round())
    } else {
        format!("{}", v.round())
    }
}
