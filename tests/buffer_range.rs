//! Ranged reads: `Buffer::read_range` returns exactly elements `[offset, offset + len)` for
//! offsets and lengths across texel and row boundaries, and rejects ranges past the end.

mod common;

use common::{ctx, reals, rng};
use fragblas::{Context, ContextOptions, Error, Tuning};

#[test]
fn every_range_of_a_few_layouts_reads_back_exactly() {
    let mut r = rng(21);
    // Narrow rows (width cap 3 texels) make short ranges cross several rows.
    let narrow = Context::with_options(ContextOptions {
        tuning: Some(Tuning::Off),
        width_cap: Some(3),
        ..Default::default()
    })
    .unwrap();
    for (ctx, len) in [
        (ctx(), 1usize),
        (ctx(), 37),
        (narrow.clone(), 50),
        (narrow, 61),
    ] {
        let data = reals(&mut r, len);
        let buf = ctx.upload(&data).unwrap();
        for off in 0..=len {
            for n in 0..=(len - off) {
                let got = buf.read_range(off, n).unwrap();
                assert_eq!(
                    got,
                    data[off..off + n],
                    "len {len}, offset {off}, count {n}"
                );
            }
        }
        let err = buf.read_range(len, 1).unwrap_err();
        assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");
        let err = buf.read_range(usize::MAX, 2).unwrap_err();
        assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");
    }
}

#[test]
fn one_element_of_a_large_buffer() {
    let ctx = ctx();
    let data: Vec<f32> = (0..3_000_000).map(|i| i as f32).collect();
    let buf = ctx.upload(&data).unwrap();
    for i in [0, 1, 4095, 32_767, 32_768, 2_999_999] {
        assert_eq!(buf.read_range(i, 1).unwrap(), [i as f32]);
    }
    let mut out = vec![f32::NAN; 40_000];
    buf.read_range_into(1_234_567, &mut out).unwrap();
    assert_eq!(out, data[1_234_567..1_274_567]);
}
