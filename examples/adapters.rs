//! Lists the GPU adapters ricochet can use (Vulkan, Metal, DX12), and the one it would pick.
//!
//! cargo run --example adapters

use ricochet::solver::gpu::{ADAPTER_VAR, GpuContext, list_adapters};

fn main() {
    let adapters = list_adapters();
    if adapters.is_empty() {
        println!("no Vulkan, Metal or DX12 adapter (on Debian: apt-get install mesa-vulkan-drivers)");
    }
    for a in &adapters {
        println!(
            "{} — {} ({}){}",
            a.name,
            a.backend,
            a.device_type,
            if a.f64 { ", f64" } else { "" }
        );
    }
    match GpuContext::new() {
        Ok(ctx) => println!("selected: {} (set {ADAPTER_VAR} to choose another)", ctx.adapter_name()),
        Err(e) => println!("{e}"),
    }
}
