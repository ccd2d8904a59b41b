//! Prints the fragment pipeline's ceilings on the default device; with `RUST_LOG=info`, the
//! rate of every variant of each probe (chain counts, texels per fragment).
fn main() -> Result<(), fragblas::Error> {
    env_logger::init();
    let ctx = fragblas::Context::new()?;
    println!("{}: {}", ctx.info().renderer, ctx.calibrate()?);
    Ok(())
}
