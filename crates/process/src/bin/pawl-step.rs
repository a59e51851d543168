//! The step launcher alone: `pawl-step __pawl-step <spec> -- <program> <args...>`. pawl itself
//! answers the same hidden argument; this binary is what pawl-process's own tests contain their
//! children with.

fn main() {
    let mut args = std::env::args_os().skip(1);
    let code = match args.next() {
        Some(first) if first == pawl_process::sandbox::LAUNCHER_ARG => {
            pawl_process::sandbox::launcher_main(args.collect())
        }
        _ => {
            let _ = pawl_process::sandbox::launcher_main(Vec::new());
            2
        }
    };
    std::process::exit(code);
}
