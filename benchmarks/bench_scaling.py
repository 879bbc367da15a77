"""4. Scaling: time per member from 10^4 to 10^7 members.

``evaluate_frame`` in memory up to 10^6 members, and ``run_batch`` on a Parquet member file
(in its default chunks) up to 10^7, each batch in a fresh process so that its own peak
memory is known. The chunks bound memory. The first pass, which finds duplicate member ids
over the whole file, keeps 8 bytes a member (a hash of each id): its own peak is measured
apart, to show it stays below the chunks'.
"""

from __future__ import annotations

import statistics

from support import (
    DATA,
    Section,
    Target,
    check,
    count,
    default_guides,
    generated_members,
    gigabytes,
    members_file,
    per_item,
    run_child,
    say,
    seconds,
    time_side_by_side,
)

from actuarial import evaluate_frame
from actuarial.batch import DEFAULT_CHUNK_ROWS

LINEAR = 1.25  # time per member may vary this much between the largest sizes
SHOW_PROGRESS_FROM = 5_000_000


def batch_in_child(members: int, repeat: int) -> tuple[float, float, int]:
    """Median wall and CPU seconds of run_batch (timed in the child) and the largest peak RSS."""
    source = members_file(members, "parquet")
    out = DATA / f"scaling-{members}.parquet"
    progress = members >= SHOW_PROGRESS_FROM
    walls, cpus, peaks = [], [], []
    for _ in range(repeat):
        out.unlink(missing_ok=True)
        result = run_child(
            ["batch", str(source), str(out), *(["--progress"] if progress else [])],
            show_stderr=progress,
        ).result
        check(
            result["members"] == members and result["rows"] == 4 * members,
            f"run_batch on {source.name}: {result['members']} members, {result['rows']} rows",
        )
        walls.append(result["wall"])
        cpus.append(result["cpu"])
        peaks.append(result["peak_rss"])
    out.unlink(missing_ok=True)
    return statistics.median(walls), statistics.median(cpus), max(peaks)


def run(sizes: tuple[int, ...], frame_up_to: int, repeat: int) -> Section:
    guides = default_guides()
    rows, frame_per_member, batch_per_member, peaks, id_check_peaks = [], {}, {}, {}, {}
    for members in sizes:
        cells = [count(members)]
        if members <= frame_up_to:
            say(f"scaling: evaluate_frame on {members:,} members x{repeat}")
            frame = generated_members(members)
            timing = time_side_by_side(
                {"frame": lambda frame=frame: evaluate_frame(frame, guides)}, repeat=repeat
            )["frame"]
            del frame
            frame_per_member[members] = timing.cpu / members
            cells += [seconds(timing.cpu), per_item(timing.cpu / members)]
        else:
            cells += ["(batch only)", ""]
        runs = 1 if members > frame_up_to else repeat
        say(f"scaling: run_batch on a Parquet file of {members:,} members x{runs} (new process)")
        wall, cpu, peak = batch_in_child(members, runs)
        first_pass = run_child(["id-check", str(members_file(members, "parquet"))]).result
        batch_per_member[members] = cpu / members
        peaks[members] = peak
        id_check_peaks[members] = first_pass["peak_rss"]
        cells += [
            seconds(wall),
            seconds(cpu),
            per_item(cpu / members),
            gigabytes(peak),
            gigabytes(first_pass["peak_rss"]),
        ]
        rows.append(cells)

    def growth(per_member: dict[int, float]) -> tuple[str, float]:
        """Time per member at the largest size over the next largest."""
        smaller, larger = sorted(per_member)[-2:]
        return f"{count(larger)} vs {count(smaller)}", per_member[larger] / per_member[smaller]

    section = Section("4. Scaling")
    section.tables.append(
        (
            [
                "members",
                "evaluate_frame CPU",
                "per member",
                "run_batch wall",
                "run_batch CPU",
                "per member (CPU)",
                "peak RSS",
                "first pass alone",
            ],
            rows,
        )
    )
    frame_sizes, frame_growth = growth(frame_per_member)
    batch_sizes, batch_growth = growth(batch_per_member)
    largest, next_largest = sorted(peaks)[-1], sorted(peaks)[-2]
    section.notes += [
        f"evaluate_frame: median of {repeat} calls after a warm-up, in this process. "
        f"run_batch: Parquet in, Parquet out, chunks of {DEFAULT_CHUNK_ROWS:,} members, in a "
        f"new process (timed inside it, imports excluded); median of {repeat} runs, one run "
        "above the evaluate_frame sizes.",
        f"Time per member, largest size over the next: evaluate_frame {frame_growth:.2f} "
        f"({frame_sizes}), run_batch {batch_growth:.2f} ({batch_sizes}). At small sizes fixed "
        "costs (guides, metadata, the first call into each library) dominate.",
        f"Peak memory of run_batch: {gigabytes(peaks[largest])} at {count(largest)} members, "
        f"{gigabytes(peaks[next_largest])} at {count(next_largest)}. 'First pass alone': "
        "a new process that only finds the duplicate member ids of the file, as run_batch "
        "does first (a 64-bit hash of every id, read in chunks: 8 bytes a member).",
        "Checked: every run's summary has all the members and 4 output rows each.",
    ]
    section.targets += [
        Target(
            "time grows linearly with members (per member within "
            f"{LINEAR}x between the largest sizes)",
            f"evaluate_frame {frame_growth:.2f}, run_batch {batch_growth:.2f}",
            frame_growth <= LINEAR and batch_growth <= LINEAR,
        ),
        Target(
            "run_batch memory bounded by its chunks, first pass included: peak within "
            f"{LINEAR}x of the next size's",
            f"{gigabytes(peaks[largest])} at {count(largest)}, {gigabytes(peaks[next_largest])} "
            f"at {count(next_largest)} ({peaks[largest] / peaks[next_largest]:.2f}x); first "
            f"pass alone {gigabytes(id_check_peaks[largest])}",
            # Only meaningful when both sizes span several chunks.
            peaks[largest] <= LINEAR * peaks[next_largest]
            if next_largest >= 2 * DEFAULT_CHUNK_ROWS
            else None,
        ),
    ]
    return section
