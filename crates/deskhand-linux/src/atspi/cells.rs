//! The cells a big table or list shows, read by position rather than by walking every row, and
//! the identity of the cells of a table that hands out new objects for them at every read.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use futures::future::join_all;
use zbus::zvariant::OwnedObjectPath;

use deskhand_core::model::{ElementHandle, Node, Rect, Role};

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
            named_anew: false,
        };
        let Some(area) = self.extents(table).await? else {
            return Ok(none());
        };
        // A header row or a frozen pane may cover a corner: step inwards until a cell is hit.
        let step = |k: i32| 2 + k * 8;
        let mut first = None;
        let mut first_y = area.y;
        for k in 0..8 {
            first_y = area.y + step(k);
            first = self.cell_at(table, area.x + 2, first_y).await?;
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
        // A Qt item view's scroll bars lie within its extents, over that corner: the last row
        // is found up the first column's edge, the last column leftwards along the first row.
        if last.is_none() && first.is_some() {
            last = self.far_cell(table, area, area.x + 2, first_y).await?;
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
                named_anew: block.named_anew,
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
                found.push(((object, row, column), text::cell_address(row, column)));
            }
        }
        // A table whose first cell is named by its address names them all so (LibreOffice):
        // their names need not be asked, one call per cell fewer. A tree view's cells are
        // named by their text, and asked; so are all when the first would not say.
        let named_by_address = match found.first() {
            Some(((first, ..), address)) => self
                .string_property(first, ACCESSIBLE, "Name")
                .await
                .is_ok_and(|name| name == *address),
            None => false,
        };
        // Asked again, only where that makes no object to keep: a spreadsheet's cell is named
        // by its address, and its cells are kept in blocks.
        let named_anew = match found.first() {
            Some((first, _)) if !named_by_address => {
                let again = self
                    .call::<_, (String, OwnedObjectPath)>(
                        table,
                        TABLE,
                        "GetAccessibleAt",
                        &(top, left),
                    )
                    .await?;
                element(again).is_some_and(|again| again != first.0)
            }
            _ => false,
        };
        let cells: Vec<VisibleCell> = found
            .into_iter()
            .map(|((object, row, column), address)| VisibleCell {
                object,
                name: named_by_address.then_some(address),
                row,
                column,
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
                .zip(left..)
                .filter_map(|(header, column)| {
                    Some((element_of(header.ok()?, &table.bus)?, column))
                })
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
                named_anew,
                read: Instant::now(),
            },
        );
        Ok(VisibleCells {
            headers,
            cells,
            total,
            named_anew,
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

    /// The row of the last cell up from the bottom of `area` at `x` and the column of the last
    /// cell leftwards from its right at `y`, where both are found: the reach grows, past a
    /// scroll bar and the empty space right of a table's last column.
    async fn far_cell(
        &self,
        table: &ObjectRef,
        area: Rect,
        x: i32,
        y: i32,
    ) -> Result<Option<(i32, i32)>, AtspiError> {
        const REACH: [i32; 8] = [2, 10, 18, 26, 42, 74, 138, 266];
        let (bottom, right) = (area.y + area.height as i32, area.x + area.width as i32);
        let mut row = None;
        for reach in REACH.into_iter().filter(|r| *r < area.height as i32) {
            if let Some((found, _)) = self.cell_at(table, x, bottom - reach).await? {
                row = Some(found);
                break;
            }
        }
        let mut column = None;
        for reach in REACH.into_iter().filter(|r| *r < area.width as i32) {
            if let Some((_, found)) = self.cell_at(table, right - reach, y).await? {
                column = Some(found);
                break;
            }
        }
        Ok(row.zip(column))
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
    /// The headers of the visible columns, where the table has them (a tree view's), each with
    /// its column.
    pub headers: Vec<(ObjectRef, i32)>,
    pub cells: Vec<VisibleCell>,
    pub total: i64,
    /// The table gave another object for its first visible cell when asked again (Qt 5's tree
    /// view): its cells are told apart by their place (see [`name_by_place`]).
    pub named_anew: bool,
}

/// A cell on screen, with its name where the table names its cells by their address.
#[derive(Debug, Clone)]
pub struct VisibleCell {
    pub object: ObjectRef,
    /// Known without asking: a spreadsheet's cell is named by its address ("B7").
    pub name: Option<String>,
    pub row: i32,
    pub column: i32,
}

/// Where a child of a table stands in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    Header { column: i32 },
    Cell { row: i32, column: i32 },
}

/// The visible block of a table's cells as last read. LibreOffice creates a new object, and
/// keeps its memory, at each `GetAccessibleAt` even for the same cell, so an unchanged block
/// is read again through the objects it gave before, which stay valid for some 15 s.
pub(super) struct CellBlock {
    top: i32,
    left: i32,
    height: usize,
    width: usize,
    headers: Vec<(ObjectRef, i32)>,
    cells: Vec<VisibleCell>,
    named_anew: bool,
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

/// The places of a table's children as it lists them all, where it hands out a new object for
/// each at every read (see [`Atspi::columns_if_named_anew`]): a header row first, one header for
/// each column, where the first child is a header, then the cells row by row. `children` are
/// the children read, each with its index among the table's children.
pub(super) fn places_in_order(children: &[(usize, Node, bool)], columns: usize) -> Vec<Place> {
    let headers = match children.first() {
        Some((0, first, _)) if first.role == Role::Header => columns,
        _ => 0,
    };
    let at = |value: usize| i32::try_from(value).unwrap_or(i32::MAX);
    children
        .iter()
        .map(|(index, ..)| match index.checked_sub(headers) {
            None => Place::Header { column: at(*index) },
            Some(cell) => Place::Cell {
                row: at(cell / columns),
                column: at(cell % columns),
            },
        })
        .collect()
}

/// Gives each child of a table that hands out a new object for it at every read a handle whose
/// identity is where it stands (`places`, one for each child read): a header by its column, a cell
/// by its row and column and the words of its whole row as read, so an unchanged table keeps its
/// refs while a row that moves into another's place is never taken for the one that stood
/// there, even where a column repeats a word ("Text", "12 KB").
pub(super) fn name_by_place(
    table: &ObjectRef,
    children: &mut [(usize, Node, bool)],
    places: &[Place],
) {
    let table = table.handle();
    let mut rows: HashMap<i32, Vec<&str>> = HashMap::new();
    for ((_, child, _), place) in children.iter().zip(places) {
        if let Place::Cell { row, .. } = place {
            rows.entry(*row).or_default().push(&child.name);
        }
    }
    let identities: Vec<String> = children
        .iter()
        .zip(places)
        .map(|((_, child, _), place)| match place {
            Place::Header { column } => format!("{}#header{column}:{}", table.0, child.name),
            Place::Cell { row, column } => {
                let words = rows
                    .get(row)
                    .map(|names| names.join("\t"))
                    .unwrap_or_default();
                format!("{}#{row},{column}:{words}", table.0)
            }
        })
        .collect();
    for ((_, child, _), identity) in children.iter_mut().zip(identities) {
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
