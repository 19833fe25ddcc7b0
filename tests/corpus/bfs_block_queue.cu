// One level of breadth-first search with a block-level queue, in the shape
// of Kirk and Hwu's "Programming Massively Parallel Processors" (the BFS
// chapter's privatised frontier).
//
// Idea: thread i expands vertex p_frontier[i] of the current frontier (a
//   graph in CSR form: the neighbours of v are dest[edges[v] .. edges[v+1])).
//   A neighbour not yet visited (atomicExch on visited[]) gets label + 1 and
//   goes to the block's shared queue, or, once that is full, straight to the
//   global next frontier; the block then appends its queue to the global one.
// Expected effect: c_frontier[0 .. *c_frontier_tail) holds every newly
//   reached vertex once, in some order; label[] holds their level.
// The overflow path stores the queue's tail plainly (as the book does) while
//   other threads atomicAdd it: a data race by CUDA's memory model that the
//   hardware hides (the final tail is kQueue either way), reported as a warning.
// Preconditions: *c_frontier_tail == 0; visited[] marks the current frontier.
#include <cstdio>
#include <vector>

constexpr unsigned kQueue = 64;  // the block queue's capacity

__global__ void bfs_block_queue(const unsigned* p_frontier, const unsigned* p_frontier_tail, unsigned* c_frontier,
                                unsigned* c_frontier_tail, const unsigned* edges, const unsigned* dest, unsigned* label,
                                unsigned* visited)
{
    __shared__ unsigned c_frontier_s[kQueue];
    __shared__ unsigned c_frontier_tail_s, our_c_frontier_tail;
    if (threadIdx.x == 0) c_frontier_tail_s = 0;
    __syncthreads();
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < *p_frontier_tail) {
        const unsigned my_vertex = p_frontier[tid];
        for (unsigned i = edges[my_vertex]; i < edges[my_vertex + 1]; ++i) {
            const unsigned was_visited = atomicExch(&visited[dest[i]], 1u);
            if (!was_visited) {
                label[dest[i]] = label[my_vertex] + 1;
                const unsigned my_tail = atomicAdd(&c_frontier_tail_s, 1u);  // marker: queue atomic
                if (my_tail < kQueue) {
                    c_frontier_s[my_tail] = dest[i];
                } else {  // full: the tail stays at the capacity, the vertex goes to the global frontier
                    c_frontier_tail_s = kQueue;  // marker: overflow store
                    const unsigned my_global_tail = atomicAdd(c_frontier_tail, 1u);
                    c_frontier[my_global_tail] = dest[i];
                }
            }
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) our_c_frontier_tail = atomicAdd(c_frontier_tail, c_frontier_tail_s);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < c_frontier_tail_s; i += blockDim.x)
        c_frontier[our_c_frontier_tail + i] = c_frontier_s[i];
}

// Wrong: thread 40 clears the count while the others add to it, with no
// barrier between; additions that come before the clear are lost (63 without
// the clear's race, fewer with it). The same mix of a plain store and atomics
// as the queue's overflow, and the same warning, at the clear.
__global__ void clear_while_adding(unsigned* out)
{
    __shared__ unsigned count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    if (threadIdx.x == 40) count = 0;  // marker: clear
    else atomicAdd(&count, 1u);        // marker: add
    __syncthreads();
    if (threadIdx.x == 0) *out = count;
}

// A host program: one level from vertices 0 and 1 of a small graph, on a GPU.
int main()
{
    const std::vector<unsigned> edges{0, 2, 4, 4, 4, 4}, dest{2, 3, 3, 4};
    std::vector<unsigned> label{0, 0, 9, 9, 9}, visited{1, 1, 0, 0, 0};
    const std::vector<unsigned> frontier{0, 1};
    const unsigned frontier_size = 2, zero = 0;
    unsigned *d_frontier, *d_size, *d_next, *d_next_size, *d_edges, *d_dest, *d_label, *d_visited;
    cudaMalloc(&d_frontier, 2 * sizeof(unsigned));
    cudaMalloc(&d_size, sizeof(unsigned));
    cudaMalloc(&d_next, 5 * sizeof(unsigned));
    cudaMalloc(&d_next_size, sizeof(unsigned));
    cudaMalloc(&d_edges, edges.size() * sizeof(unsigned));
    cudaMalloc(&d_dest, dest.size() * sizeof(unsigned));
    cudaMalloc(&d_label, label.size() * sizeof(unsigned));
    cudaMalloc(&d_visited, visited.size() * sizeof(unsigned));
    cudaMemcpy(d_frontier, frontier.data(), 2 * sizeof(unsigned), cudaMemcpyHostToDevice);
    cudaMemcpy(d_size, &frontier_size, sizeof(unsigned), cudaMemcpyHostToDevice);
    cudaMemcpy(d_next_size, &zero, sizeof(unsigned), cudaMemcpyHostToDevice);
    cudaMemcpy(d_edges, edges.data(), edges.size() * sizeof(unsigned), cudaMemcpyHostToDevice);
    cudaMemcpy(d_dest, dest.data(), dest.size() * sizeof(unsigned), cudaMemcpyHostToDevice);
    cudaMemcpy(d_label, label.data(), label.size() * sizeof(unsigned), cudaMemcpyHostToDevice);
    cudaMemcpy(d_visited, visited.data(), visited.size() * sizeof(unsigned), cudaMemcpyHostToDevice);
    bfs_block_queue<<<1, 64>>>(d_frontier, d_size, d_next, d_next_size, d_edges, d_dest, d_label, d_visited);
    unsigned next_size = 0;
    cudaMemcpy(&next_size, d_next_size, sizeof(unsigned), cudaMemcpyDeviceToHost);
    std::printf("next frontier: %u vertices\n", next_size);
    return 0;
}
