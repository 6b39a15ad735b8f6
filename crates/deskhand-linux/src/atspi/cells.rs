//! The cells a big table or list shows, read by position rather than by walking every row, and
//! the identity of the cells of a table that hands out new objects for them at every read.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use futures::future::join_all;
use zbus::zvariant::OwnedObjectPath;

use deskhand_core::model::{ElementHandle, Node, Role};

use super::*;

impl Atspi {
    /// The element's own children that show, in their order, found by the application in one
    /// call (`Collection.GetMatches` without descending): a long page's off-screen paragraphs
    /// are never asked one by one.
    pub async fn showing_children(&self, object: &ObjectRef) -> Result<Vec<ObjectRef>, AtspiError> {
        // The state set goes as two 32-bit words, the role set as four (libatspi's layout).
        let showing = atspi::State::Showing as u64;
        const MATCH_ALL: i32 = 1;
        const CANONICAL_ORDER: u32 = 1;
        let rule = (
            vec![showing as u32 as i32, (showing >> 32) as u32 as i32],
            MATCH_ALL,
            std::collections::HashMap::<String, String>::new(),
            MATCH_ALL,
            vec![0i32; 4],
            MATCH_ALL,
            Vec::<String>::new(),
            MATCH_ALL,
            false,
        );
        let matches: Vec<(String, OwnedObjectPath)> = self
            .call(
                object,
                COLLECTION,
                "GetMatches",
                &(rule, CANONICAL_ORDER, 0i32, false),
            )
            .await?;
        Ok(elements(matches))
    }

    /// The cells of a table that are on screen, found from the cells at its top-left and
    /// bottom-right corners: the table's other cells are never created.
    pub async fn visible_cells(
        &self,
        table: &ObjectRef,
        max: usize,
    ) -> Result<VisibleCells, AtspiError> {
        let (rows, columns): (i32, i32) = futures::try_join!(
            async { Ok(i32::try_from(self.property(table, TABLE, "NRows").await?).unwrap_or(0)) },
            async {
                Ok(i32::try_from(self.property(table, TABLE, "NColumns").await?).unwrap_or(0))
            },
        )?;
        let total = i64::from(rows.max(0)) * i64::from(columns.max(0));
        let none = || VisibleCells {
            headers: Vec::new(),
            cells: Vec::new(),
            total,
        };
        let Some(area) = self.extents(table).await? else {
            return Ok(none());
        };
        // A header row or a frozen pane may cover a corner: step inwards until a cell is hit.
        let step = |k: i32| 2 + k * 8;
        let mut first = None;
        for k in 0..8 {
            first = self.cell_at(table, area.x + 2, area.y + step(k)).await?;
            if first.is_some() {
                break;
            }
        }
        let mut last = None;
        for k in 0..8 {
            let right = area.x + area.width as i32 - 3;
            let bottom = area.y + area.height as i32 - step(k);
            last = self.cell_at(table, right, bottom).await?;
            if last.is_some() {
                break;
            }
        }
        let (Some((top, left)), Some((bottom, right))) = (first, last) else {
            return Ok(none());
        };
        let width = usize::try_from(right - left + 1).unwrap_or(0).clamp(1, max);
        let height = usize::try_from(bottom - top + 1)
            .unwrap_or(0)
            .clamp(1, (max / width).max(1));
        if let Some(block) = self.cell_blocks.lock().expect("not poisoned").get(table)
            && (block.top, block.left, block.height, block.width) == (top, left, height, width)
            && block.read.elapsed() < CELL_BLOCK_REUSE
        {
            return Ok(VisibleCells {
                headers: block.headers.clone(),
                cells: block.cells.clone(),
                total,
            });
        }
        let reads = (0..height)
            .flat_map(|r| (0..width).map(move |c| (r, c)))
            .map(|(r, c)| {
                let row = top + r as i32;
                let column = left + c as i32;
                async move {
                    let cell = self
                        .call::<_, (String, OwnedObjectPath)>(
                            table,
                            TABLE,
                            "GetAccessibleAt",
                            &(row, column),
                        )
                        .await;
                    cell.map(|cell| (cell, row, column))
                }
            });
        let mut found = Vec::new();
        for cell in join_all(reads).await {
            let (reference, row, column) = cell?;
            if let Some(object) = element(reference) {
                found.push((object, text::cell_address(row, column)));
            }
        }
        // A table whose first cell is named by its address names them all so (LibreOffice):
        // their names need not be asked, one call per cell fewer. A tree view's cells are
        // named by their text, and asked; so are all when the first would not say.
        let named_by_address = match found.first() {
            Some((first, address)) => self
                .string_property(first, ACCESSIBLE, "Name")
                .await
                .is_ok_and(|name| name == *address),
            None => false,
        };
        let cells: Vec<VisibleCell> = found
            .into_iter()
            .map(|(object, address)| VisibleCell {
                object,
                name: named_by_address.then_some(address),
            })
            .collect();
        // A tree view names its columns in headers; a spreadsheet's column letters are no
        // header it keeps, and it would make a new object at every ask.
        let headers = if named_by_address {
            Vec::new()
        } else {
            let asked = (0..width).map(|c| {
                let column = left + c as i32;
                async move {
                    self.call::<_, (String, OwnedObjectPath)>(
                        table,
                        TABLE,
                        "GetColumnHeader",
                        &(column,),
                    )
                    .await
                }
            });
            join_all(asked)
                .await
                .into_iter()
                .filter_map(|header| element_of(header.ok()?, &table.bus))
                .collect()
        };
        self.cell_blocks.lock().expect("not poisoned").insert(
            table.clone(),
            CellBlock {
                top,
                left,
                height,
                width,
                headers: headers.clone(),
                cells: cells.clone(),
                read: Instant::now(),
            },
        );
        Ok(VisibleCells {
            headers,
            cells,
            total,
        })
    }

    /// How many columns a table has, where it hands out a new object for a child at every ask
    /// (Qt 5's tree view does, for each cell and header), so that its children can be told apart
    /// by where they stand in it instead (see [`name_by_place`]). `None` where the table gives
    /// the same objects again, or where `children`, those read, are not all of its children in
    /// order.
    pub(super) async fn columns_if_named_anew(
        &self,
        table: &ObjectRef,
        children: &[ObjectRef],
    ) -> Result<Option<usize>, AtspiError> {
        let Some(first) = children.first() else {
            return Ok(None);
        };
        // Counted first: a spreadsheet, of which only the visible cells were read, creates and
        // keeps an object for a cell at every ask.
        let count = self.child_count(table).await?;
        if usize::try_from(count).ok() != Some(children.len()) {
            return Ok(None);
        }
        let again: (String, OwnedObjectPath) = self
            .call(table, ACCESSIBLE, "GetChildAtIndex", &(0i32,))
            .await?;
        if element_of(again, &table.bus).as_ref() == Some(first) {
            return Ok(None);
        }
        let columns = self.property(table, TABLE, "NColumns").await?;
        Ok(i32::try_from(columns)
            .ok()
            .and_then(|columns| usize::try_from(columns).ok())
            .filter(|columns| *columns > 0))
    }

    /// The row and column of the table cell at a point, if a cell of `table` is there.
    pub(super) async fn cell_at(
        &self,
        table: &ObjectRef,
        x: i32,
        y: i32,
    ) -> Result<Option<(i32, i32)>, AtspiError> {
        let reference: (String, OwnedObjectPath) = self
            .call(
                table,
                COMPONENT,
                "GetAccessibleAtPoint",
                &(x, y, COORD_SCREEN),
            )
            .await?;
        let Some(cell) = element(reference) else {
            return Ok(None);
        };
        let (role, index) = futures::join!(
            self.call::<_, u32>(&cell, ACCESSIBLE, "GetRole", &()),
            self.call::<_, i32>(&cell, ACCESSIBLE, "GetIndexInParent", &()),
        );
        if translate::role(role?) != Role::Cell {
            return Ok(None);
        }
        let index = (index?,);
        let (row, column) = futures::join!(
            self.call::<_, i32>(table, TABLE, "GetRowAtIndex", &index),
            self.call::<_, i32>(table, TABLE, "GetColumnAtIndex", &index),
        );
        let (row, column) = (row?, column?);
        Ok((row >= 0 && column >= 0).then_some((row, column)))
    }
}

/// The cells of a table on screen, and how many cells the table has.
pub struct VisibleCells {
    /// The headers of the visible columns, where the table has them (a tree view's).
    pub headers: Vec<ObjectRef>,
    pub cells: Vec<VisibleCell>,
    pub total: i64,
}

/// A cell on screen, with its name where the table names its cells by their address.
#[derive(Debug, Clone)]
pub struct VisibleCell {
    pub object: ObjectRef,
    /// Known without asking: a spreadsheet's cell is named by its address ("B7").
    pub name: Option<String>,
}

/// The visible block of a table's cells as last read. LibreOffice creates a new object, and
/// keeps its memory, at each `GetAccessibleAt` even for the same cell, so an unchanged block
/// is read again through the objects it gave before, which stay valid for some 15 s.
pub(super) struct CellBlock {
    top: i32,
    left: i32,
    height: usize,
    width: usize,
    headers: Vec<ObjectRef>,
    cells: Vec<VisibleCell>,
    read: Instant,
}

/// A tree view's cell of several renderers holds a cell for each: the empty ones (an icon) are
/// dropped, and a lone named one gives the cell its name, so the row's "Process Name" cell reads
/// as the name it shows.
pub(super) fn merge_nested_cells(cell: &mut Node) {
    let empty = |n: &Node| {
        n.role == Role::Cell
            && n.children.is_empty()
            && n.name.trim().is_empty()
            && n.value.as_deref().is_none_or(|v| v.trim().is_empty())
    };
    if cell.role != Role::Cell || cell.children.is_empty() {
        return;
    }
    cell.children.retain(|child| !empty(child));
    if let [only] = cell.children.as_slice()
        && only.role == Role::Cell
        && only.children.is_empty()
        && cell.name.trim().is_empty()
        && cell.value.is_none()
    {
        cell.name = only.name.clone();
        cell.value = only.value.clone();
        cell.children.clear();
    }
}

/// Gives each child of a table that hands out a new object for it at every read (see
/// [`Atspi::columns_if_named_anew`]) a handle whose identity is where it stands: the leading
/// headers by their column, each cell by its row and column and the words of its whole row, so
/// an unchanged table keeps its refs while a row that moves into another's place is never taken
/// for the one that stood there, even where a column repeats a word ("Text", "12 KB").
/// `children` are the children read, each with its index among the table's children.
pub(super) fn name_by_place(
    table: &ObjectRef,
    children: &mut [(usize, Node, bool)],
    columns: usize,
) {
    let table = table.handle();
    // A header row comes first, one header for each column.
    let headers = match children.first() {
        Some((0, first, _)) if first.role == Role::Header => columns,
        _ => 0,
    };
    let mut rows: HashMap<usize, Vec<String>> = HashMap::new();
    for (index, child, _) in children.iter().filter(|(index, ..)| *index >= headers) {
        let row = (index - headers) / columns;
        rows.entry(row).or_default().push(child.name.clone());
    }
    for (index, child, _) in children.iter_mut() {
        let identity = if *index < headers {
            format!("{}#header{index}:{}", table.0, child.name)
        } else {
            let (row, column) = ((*index - headers) / columns, (*index - headers) % columns);
            let words = rows
                .get(&row)
                .map(|names| names.join("\t"))
                .unwrap_or_default();
            format!("{}#{row},{column}:{words}", table.0)
        };
        child.handle = ElementHandle::with_identity(&child.handle.0, &identity);
    }
}

/// The most cells one table cell holds that are read: a tree view's cell holds one for each of
/// its column's renderers.
pub(super) const MAX_NESTED_CELLS: i64 = 8;

/// How long the cell objects of a block are reused.
pub(super) const CELL_BLOCK_REUSE: Duration = Duration::from_secs(8);

/// The most cells of a table that creates them on demand one observation reads.
pub(super) const MAX_VISIBLE_CELLS: usize = 300;
