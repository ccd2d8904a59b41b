//! What a run records, one JSON object per line: a `device` line (the device, the CPU BLAS
//! and the ceilings), then one `row` line per routine, size and mode. Everything the table
//! and the charts show is here, so a saved run can be drawn again (`--from`).

use serde::{Deserialize, Serialize};

use crate::measure::Bound;

/// The first line: what the rows were measured on.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct DeviceLine {
    pub kind: String,
    pub device: String,
    pub software: bool,
    pub date: String,
    pub cpu_blas: String,
    pub cpu_threads: usize,
    /// The fragment pipeline's FMA ceiling, GFLOP/s.
    pub fma_gflops: f64,
    /// The read-bandwidth ceiling the byte-bound rows are measured against, GB/s.
    pub read_gbps: f64,
    pub copy_gbps: f64,
    pub stream_gbps: f64,
}

/// One routine at one size in one mode (`cpu`, `resident` or `e2e`).
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct RowLine {
    pub kind: String,
    pub routine: String,
    pub size: String,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub mode: String,
    pub bound: Bound,
    pub flops: f64,
    pub bytes: f64,
    pub seconds: Option<f64>,
    pub gflops: Option<f64>,
    pub gbps: Option<f64>,
    pub ceiling_fraction: Option<f64>,
    /// The GPU modes' run-to-run spread (half the interquartile range over the median).
    #[serde(default)]
    pub spread: Option<f64>,
    pub error: Option<String>,
}

impl RowLine {
    /// Flop per byte the definition must move.
    pub fn intensity(&self) -> f64 {
        self.flops / self.bytes
    }

    /// The size the speed-up chart puts on its x axis: the vector length (level 1) or the
    /// matrix order.
    pub fn order(&self) -> usize {
        self.n.max(self.m)
    }
}

/// A whole run: its device line and its rows.
pub struct Run {
    pub device: DeviceLine,
    pub rows: Vec<RowLine>,
}

impl Run {
    /// Reads a run from JSON lines (the `--json-out` file).
    pub fn parse(text: &str) -> Result<Run, String> {
        let mut device = None;
        let mut rows = Vec::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| format!("line {}: {e}", i + 1))?;
            let bad = |e: serde_json::Error| format!("line {}: {e}", i + 1);
            match v.get("kind").and_then(|k| k.as_str()) {
                Some("device") => device = Some(serde_json::from_value(v).map_err(bad)?),
                Some("row") => rows.push(serde_json::from_value(v).map_err(bad)?),
                other => return Err(format!("line {}: unknown kind {other:?}", i + 1)),
            }
        }
        let device = device.ok_or("no device line")?;
        Ok(Run { device, rows })
    }

    /// The rows of one mode that have a time.
    pub fn timed<'a>(&'a self, mode: &'a str) -> impl Iterator<Item = &'a RowLine> + 'a {
        self.rows
            .iter()
            .filter(move |r| r.mode == mode && r.seconds.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_round_trips_through_json_lines() {
        let d = DeviceLine {
            kind: "device".into(),
            device: "dev".into(),
            software: true,
            date: "2026-11-23".into(),
            cpu_blas: "OpenBLAS".into(),
            cpu_threads: 2,
            fma_gflops: 100.0,
            read_gbps: 10.0,
            copy_gbps: 8.0,
            stream_gbps: 6.0,
        };
        let r = RowLine {
            kind: "row".into(),
            routine: "saxpy".into(),
            size: "2^10".into(),
            m: 1024,
            n: 1024,
            k: 0,
            mode: "resident".into(),
            bound: Bound::Bytes,
            flops: 2048.0,
            bytes: 12288.0,
            seconds: Some(1e-5),
            gflops: Some(0.2),
            gbps: Some(1.2),
            ceiling_fraction: Some(0.12),
            spread: Some(0.01),
            error: None,
        };
        let text = format!(
            "{}\n{}\n",
            serde_json::to_string(&d).unwrap(),
            serde_json::to_string(&r).unwrap()
        );
        let run = Run::parse(&text).unwrap();
        assert_eq!(run.device.fma_gflops, 100.0);
        assert_eq!(run.rows.len(), 1);
        assert_eq!(run.timed("resident").count(), 1);
        assert_eq!(run.timed("cpu").count(), 0);
        assert!((run.rows[0].intensity() - 1.0 / 6.0).abs() < 1e-12);
        assert!(Run::parse("{\"kind\":\"row\"}").is_err());
        assert!(Run::parse("").is_err());
    }
}
