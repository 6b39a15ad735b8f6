//! Reading the overlay's marks in a screenshot, for the overlay tests of every display server.

/// The marks' colour (`deskhand_linux::overlay::MARKER_RGB`).
pub const MARKER: [u8; 3] = [0xff, 0x2d, 0x95];

/// Within what compression and scaling leave of a colour.
pub fn like(pixel: [u8; 3], colour: [u8; 3]) -> bool {
    pixel.iter().zip(colour).all(|(p, c)| p.abs_diff(c) <= 24)
}

pub struct Shot {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<[u8; 3]>,
}

impl Shot {
    pub fn decode(bytes: &[u8]) -> Shot {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let mut reader = decoder.read_info().expect("a PNG");
        let mut buffer = vec![0; reader.output_buffer_size().expect("a PNG of a sane size")];
        let info = reader.next_frame(&mut buffer).expect("the PNG's pixels");
        let channels = info.color_type.samples();
        Shot {
            width: info.width,
            height: info.height,
            rgb: buffer[..info.buffer_size()]
                .chunks_exact(channels)
                .map(|p| [p[0], p[1], p[2]])
                .collect(),
        }
    }

    pub fn at(&self, x: u32, y: u32) -> [u8; 3] {
        self.rgb[(y * self.width + x) as usize]
    }

    /// The marks' pixels from row `top` down.
    pub fn markers_from(&self, top: u32) -> Vec<(u32, u32)> {
        (top..self.height)
            .flat_map(|y| (0..self.width).map(move |x| (x, y)))
            .filter(|&(x, y)| like(self.at(x, y), MARKER))
            .collect()
    }
}

/// The smallest rectangle around `points`: left, top, right, bottom.
pub fn extent(points: &[(u32, u32)]) -> (u32, u32, u32, u32) {
    let xs = points.iter().map(|p| p.0);
    let ys = points.iter().map(|p| p.1);
    (
        xs.clone().min().unwrap(),
        ys.clone().min().unwrap(),
        xs.max().unwrap(),
        ys.max().unwrap(),
    )
}
