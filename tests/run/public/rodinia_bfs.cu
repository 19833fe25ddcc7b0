// Breadth-first search level by level, in the shape of Rodinia's BFS: a
// thread a vertex, bool masks for the frontier, the vertices reached this
// level and those visited, and a global `over` flag that any thread that
// reached a vertex sets to true, the host launching levels until none does.
// Several threads store the same value to one place (a vertex's cost and its
// mask, reached from two frontier vertices; the flag): a data race by CUDA's
// memory model, harmless here because every store writes the same bytes.
// expect exit: 0
// expect stdout: ^bfs: 1500 vertices, [0-9]+ reached in [0-9]+ levels, correct
// expect warnings: 3
// expect warning: kernel Kernel2, [^:]*: plain stores of the same value to one element of g_over by two threads
// expect warning: kernel Kernel, [^:]*: plain stores of the same value to one element of g_cost by two threads
// expect warning: kernel Kernel, [^:]*: plain stores of the same value to one element of g_updating_graph_mask by two threads
#include <cstdio>
#include <cstdlib>
#include <queue>
#include <vector>

#define MAX_THREADS_PER_BLOCK 256

struct Node {
    int starting;
    int no_of_edges;
};

__global__ void Kernel(const Node* g_graph_nodes, const int* g_graph_edges, bool* g_graph_mask, bool* g_updating_graph_mask,
                       const bool* g_graph_visited, int* g_cost, int no_of_nodes)
{
    const int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
    if (tid < no_of_nodes && g_graph_mask[tid]) {
        g_graph_mask[tid] = false;
        for (int i = g_graph_nodes[tid].starting; i < g_graph_nodes[tid].no_of_edges + g_graph_nodes[tid].starting; i++) {
            const int id = g_graph_edges[i];
            if (!g_graph_visited[id]) {
                g_cost[id] = g_cost[tid] + 1;
                g_updating_graph_mask[id] = true;
            }
        }
    }
}

__global__ void Kernel2(bool* g_graph_mask, bool* g_updating_graph_mask, bool* g_graph_visited, bool* g_over, int no_of_nodes)
{
    const int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
    if (tid < no_of_nodes && g_updating_graph_mask[tid]) {
        g_graph_mask[tid] = true;
        g_graph_visited[tid] = true;
        *g_over = true;
        g_updating_graph_mask[tid] = false;
    }
}

int main(int argc, char** argv)
{
    const int no_of_nodes = 1500, source = 0;
    // A seeded random graph: each vertex has 1 to 4 edges to random vertices.
    srand(31);
    std::vector<Node> h_graph_nodes(no_of_nodes);
    std::vector<int> h_graph_edges;
    for (int v = 0; v < no_of_nodes; v++) {
        h_graph_nodes[v].starting = (int)h_graph_edges.size();
        h_graph_nodes[v].no_of_edges = 1 + rand() % 4;
        for (int e = 0; e < h_graph_nodes[v].no_of_edges; e++) h_graph_edges.push_back(rand() % no_of_nodes);
    }
    const int edge_list_size = (int)h_graph_edges.size();
    std::vector<char> h_graph_mask(no_of_nodes, 0), h_graph_visited(no_of_nodes, 0);
    std::vector<int> h_cost(no_of_nodes, -1);
    h_graph_mask[source] = h_graph_visited[source] = 1;
    h_cost[source] = 0;

    Node* d_graph_nodes;
    int *d_graph_edges, *d_cost;
    bool *d_graph_mask, *d_updating_graph_mask, *d_graph_visited, *d_over;
    cudaMalloc((void**)&d_graph_nodes, sizeof(Node) * no_of_nodes);
    cudaMalloc((void**)&d_graph_edges, sizeof(int) * edge_list_size);
    cudaMalloc((void**)&d_graph_mask, sizeof(bool) * no_of_nodes);
    cudaMalloc((void**)&d_updating_graph_mask, sizeof(bool) * no_of_nodes);
    cudaMalloc((void**)&d_graph_visited, sizeof(bool) * no_of_nodes);
    cudaMalloc((void**)&d_cost, sizeof(int) * no_of_nodes);
    cudaMalloc((void**)&d_over, sizeof(bool));
    cudaMemcpy(d_graph_nodes, h_graph_nodes.data(), sizeof(Node) * no_of_nodes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_graph_edges, h_graph_edges.data(), sizeof(int) * edge_list_size, cudaMemcpyHostToDevice);
    cudaMemcpy(d_graph_mask, h_graph_mask.data(), sizeof(bool) * no_of_nodes, cudaMemcpyHostToDevice);
    cudaMemset(d_updating_graph_mask, 0, sizeof(bool) * no_of_nodes);
    cudaMemcpy(d_graph_visited, h_graph_visited.data(), sizeof(bool) * no_of_nodes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_cost, h_cost.data(), sizeof(int) * no_of_nodes, cudaMemcpyHostToDevice);

    const int num_of_blocks = (no_of_nodes + MAX_THREADS_PER_BLOCK - 1) / MAX_THREADS_PER_BLOCK;
    dim3 grid(num_of_blocks, 1, 1), threads(MAX_THREADS_PER_BLOCK, 1, 1);
    int k = 0;
    bool stop;
    do {
        stop = false;  // if no thread changes this value, the search is over
        cudaMemcpy(d_over, &stop, sizeof(bool), cudaMemcpyHostToDevice);
        Kernel<<<grid, threads, 0>>>(d_graph_nodes, d_graph_edges, d_graph_mask, d_updating_graph_mask, d_graph_visited, d_cost, no_of_nodes);
        Kernel2<<<grid, threads, 0>>>(d_graph_mask, d_updating_graph_mask, d_graph_visited, d_over, no_of_nodes);
        cudaMemcpy(&stop, d_over, sizeof(bool), cudaMemcpyDeviceToHost);
        k++;
    } while (stop);
    if (cudaGetLastError() != cudaSuccess) {
        printf("bfs: a launch failed\n");
        return 1;
    }
    cudaMemcpy(h_cost.data(), d_cost, sizeof(int) * no_of_nodes, cudaMemcpyDeviceToHost);

    std::vector<int> expected(no_of_nodes, -1);
    std::queue<int> frontier;
    expected[source] = 0;
    frontier.push(source);
    while (!frontier.empty()) {
        const int v = frontier.front();
        frontier.pop();
        for (int i = h_graph_nodes[v].starting; i < h_graph_nodes[v].starting + h_graph_nodes[v].no_of_edges; i++)
            if (expected[h_graph_edges[i]] < 0) {
                expected[h_graph_edges[i]] = expected[v] + 1;
                frontier.push(h_graph_edges[i]);
            }
    }
    int wrong = 0, reached = 0;
    for (int v = 0; v < no_of_nodes; v++) {
        wrong += h_cost[v] != expected[v];
        reached += expected[v] >= 0;
    }
    printf("bfs: %d vertices, %d reached in %d levels, %s\n", no_of_nodes, reached, k - 1, wrong ? "WRONG" : "correct");
    cudaFree(d_graph_nodes);
    cudaFree(d_graph_edges);
    cudaFree(d_graph_mask);
    cudaFree(d_updating_graph_mask);
    cudaFree(d_graph_visited);
    cudaFree(d_cost);
    cudaFree(d_over);
    return wrong ? 1 : 0;
}
