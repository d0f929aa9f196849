//! What the examples share: quick mode, the output folder, timing, and line plots written as
//! PNGs (plotters into a pixel buffer, text through ab_glyph with the font shipped in
//! `examples/data`, so no system fonts are needed; `image` encodes the PNG).
//!
//! Not every example uses every helper.
#![allow(dead_code)]

use std::error::Error;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::Instant;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

/// The examples' result type.
pub type Res<T> = std::result::Result<T, Box<dyn Error>>;

/// DejaVu Sans cut down to ASCII and a few symbols (15 KB); licence beside it.
static FONT: &[u8] = include_bytes!("../data/DejaVuSans-subset.ttf");

/// Whether quick mode is on: env `GPUARRAY_EXAMPLES_QUICK` set to anything but "" or "0".
/// Quick mode uses small sizes, so that each example runs in seconds on lavapipe (CI).
pub fn quick() -> bool {
    std::env::var("GPUARRAY_EXAMPLES_QUICK").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Where outputs go: env `GPUARRAY_EXAMPLES_OUT`, else `target/examples-out` (created).
pub fn out_dir() -> Res<PathBuf> {
    let dir = std::env::var_os("GPUARRAY_EXAMPLES_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/examples-out"));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Mean seconds per call of `f`, on the host's clock: one warm-up call, then calls until
/// `budget_s` has passed (at least 1, at most `max_reps`). `f` must wait for its own work.
pub fn time_host(budget_s: f64, max_reps: usize, mut f: impl FnMut() -> Res<()>) -> Res<f64> {
    f()?;
    let t0 = Instant::now();
    let mut reps = 0;
    while reps < max_reps.max(1) {
        f()?;
        reps += 1;
        if t0.elapsed().as_secs_f64() >= budget_s {
            break;
        }
    }
    Ok(t0.elapsed().as_secs_f64() / reps as f64)
}

/// Milliseconds per call of `f`, between device events around `reps` calls (after a
/// warm-up call and a synchronize, so that the events time only the calls).
pub fn time_events(
    dev: &gpuarray::Device,
    reps: usize,
    mut f: impl FnMut() -> Res<()>,
) -> Res<f64> {
    f()?;
    dev.synchronize()?;
    let start = dev.record_event()?;
    for _ in 0..reps {
        f()?;
    }
    let end = dev.record_event()?;
    end.synchronize()?;
    Ok(start.elapsed_ms(&end)? / reps as f64)
}

/// Engineering notation for sizes: 1000 -> "1k", 2^20 -> "1.05M".
pub fn si(v: f64) -> String {
    let (d, s) = if v.abs() >= 1e9 {
        (1e9, "G")
    } else if v.abs() >= 1e6 {
        (1e6, "M")
    } else if v.abs() >= 1e3 {
        (1e3, "k")
    } else {
        (1.0, "")
    };
    let x = v / d;
    if (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}{s}")
    } else if x < 10.0 {
        format!("{x:.2}{s}")
    } else {
        format!("{x:.1}{s}")
    }
}

/// A labelled line of points.
pub struct Series {
    /// The legend's text.
    pub name: String,
    /// (x, y) points, in order of x.
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed-looking (thin, pale) rather than solid: for references and raw data.
    pub faint: bool,
}

impl Series {
    /// A solid series.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.into(),
            points,
            faint: false,
        }
    }
    /// A pale series (raw data, references).
    pub fn faint(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.into(),
            points,
            faint: true,
        }
    }
}

/// One chart: a title, axis labels (with units) and series; axes linear or logarithmic.
pub struct Chart {
    /// The title, drawn above.
    pub title: String,
    /// The x axis's label, with its unit.
    pub x_label: String,
    /// The y axis's label, with its unit.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// Draw markers at the points (for measurements; off for dense signals).
    pub markers: bool,
    /// The lines.
    pub series: Vec<Series>,
    /// Short texts drawn at points: (x, y, text).
    pub notes: Vec<(f64, f64, String)>,
}

impl Chart {
    /// A chart with markers and linear axes.
    pub fn new(title: impl Into<String>, x_label: &str, y_label: &str) -> Chart {
        Chart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            log_x: false,
            log_y: false,
            markers: true,
            series: Vec::new(),
            notes: Vec::new(),
        }
    }
    /// Both axes logarithmic.
    pub fn log_log(mut self) -> Chart {
        self.log_x = true;
        self.log_y = true;
        self
    }
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for style in [FontStyle::Normal, FontStyle::Bold] {
            plotters::style::register_font("sans-serif", style, FONT)
                .unwrap_or_else(|_| panic!("the bundled font does not parse"));
        }
    });
}

/// Writes `charts` into one PNG of `cols` columns, each chart `w` x `h` pixels.
pub fn save_charts(path: &Path, charts: &[Chart], cols: usize, (w, h): (u32, u32)) -> Res<()> {
    register_font();
    let cols = cols.clamp(1, charts.len().max(1));
    let rows = charts.len().div_ceil(cols).max(1);
    let (tw, th) = (w * cols as u32, h * rows as u32);
    let mut buf = vec![0u8; (tw * th * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (tw, th)).into_drawing_area();
        root.fill(&WHITE)?;
        let areas = root.split_evenly((rows, cols));
        for (chart, area) in charts.iter().zip(&areas) {
            draw_chart(area, chart)?;
        }
        root.present()?;
    }
    let img = image::RgbImage::from_raw(tw, th, buf).ok_or("plot buffer of the wrong size")?;
    save_png(&img, path)?;
    println!("wrote {}", path.display());
    Ok(())
}

/// Writes `img` as a PNG at the best compression (plots are mostly flat colour).
pub fn save_png<P, C>(img: &image::ImageBuffer<P, C>, path: &Path) -> Res<()>
where
    P: image::PixelWithColorType,
    [P::Subpixel]: image::EncodableLayout,
    C: std::ops::Deref<Target = [P::Subpixel]>,
{
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    img.write_with_encoder(PngEncoder::new_with_quality(
        file,
        CompressionType::Best,
        FilterType::Adaptive,
    ))?;
    Ok(())
}

/// Writes one chart as an 800 x 500 PNG.
pub fn save_chart(path: &Path, chart: &Chart) -> Res<()> {
    save_charts(path, std::slice::from_ref(chart), 1, (800, 500))
}

/// The range of the values, padded (by a factor on log axes), never empty.
fn range(values: impl Iterator<Item = f64>, log: bool) -> Range<f64> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return if log { 1.0..10.0 } else { 0.0..1.0 };
    }
    if log {
        lo / 1.3..hi * 1.3
    } else {
        let pad = ((hi - lo) * 0.05).max(1e-12);
        lo - pad..hi + pad
    }
}

fn draw_chart(area: &DrawingArea<BitMapBackend<'_>, Shift>, c: &Chart) -> Res<()> {
    let xs = range(
        c.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
        c.log_x,
    );
    let ys = range(
        c.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
        c.log_y,
    );
    match (c.log_x, c.log_y) {
        (false, false) => draw_in(area, c, xs, ys),
        (true, false) => draw_in(area, c, xs.log_scale(), ys),
        (false, true) => draw_in(area, c, xs, ys.log_scale()),
        (true, true) => draw_in(area, c, xs.log_scale(), ys.log_scale()),
    }
}

fn draw_in<X, Y>(area: &DrawingArea<BitMapBackend<'_>, Shift>, c: &Chart, xr: X, yr: Y) -> Res<()>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(area)
        .caption(&c.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(64)
        .build_cartesian_2d(xr, yr)?;
    let fmt = |v: &f64| {
        if v.abs() >= 1e3 || (v.abs() < 1e-2 && *v != 0.0) {
            if v.abs() >= 1e3 {
                si(*v)
            } else {
                format!("{v:.0e}")
            }
        } else {
            format!("{}", (v * 1000.0).round() / 1000.0)
        }
    };
    chart
        .configure_mesh()
        .x_desc(&c.x_label)
        .y_desc(&c.y_label)
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt)
        .axis_desc_style(("sans-serif", 15))
        .label_style(("sans-serif", 12))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let mut solid = 0;
    for s in &c.series {
        let color = if s.faint {
            RGBColor(170, 170, 170)
        } else {
            solid += 1;
            COLORS[(solid - 1) % COLORS.len()]
        };
        let style = color.stroke_width(if s.faint { 1 } else { 2 });
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), style))?
            .label(&s.name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2)));
        if c.markers && !s.faint {
            chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
    }
    for (x, y, text) in &c.notes {
        chart.draw_series(std::iter::once(Text::new(
            text.clone(),
            (*x, *y),
            ("sans-serif", 12).into_font().color(&BLACK),
        )))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    Ok(())
}
