//! Prints the fragment pipeline's ceilings on the default device.
fn main() -> Result<(), fragblas::Error> {
    let ctx = fragblas::Context::new()?;
    println!("{}: {}", ctx.info().renderer, ctx.calibrate()?);
    Ok(())
}
