//! The main job: load a real matrix shipped with the repository, pack it in several formats and
//! print a summary.

fn main() {
    println!("sparse");
}
