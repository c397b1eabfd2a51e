//! The published figures of the seed studies, transcribed by hand from the texts in `shared/seeds/`
//! (file name in each module's doc), so that every report can put the seed's own numbers next to this
//! machine's. Nothing here is measured or derived by shifr: where a seed states a number, the constant
//! holds exactly that number, with its unit; where a seed only shows a chart without numbers, the
//! module says so and keeps the claims the text makes about it.

pub mod seed000_tls;
pub mod seed001_gost;
pub mod seed002_files;
pub mod seed003_kuznyechik;
pub mod seed004_dump;
