# https://github.com/CAI23sbP/Isaaclab_Parkour/issues/3
# A faithful reduction of Isaaclab_Parkour's
# OnPolicyRunnerWithExtractor.learn_vision,
# DistillationWithExtractor.update_depth_actor and
# RecurrentDepthBackbone (rsl_rl / Isaac Lab env replaced by a tiny fake
# env whose depth camera refreshes every 5 steps).
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)

NUM_ENVS, NUM_PROP, NUM_OBS, NUM_ACT, DEPTH = 4, 6, 10, 3, 8


class FakeParkourEnv:
    """common_step_counter counts every env.step; the camera refreshes
    when it is a multiple of 5."""

    def __init__(self):
        self.common_step_counter = 0
        self.obs = torch.randn(NUM_ENVS, NUM_OBS)
        self.depth = torch.randn(NUM_ENVS, DEPTH)

    def get_observations(self):
        return self.obs.clone(), {
            "observations": {
                "depth_camera": self.depth.clone(),
                "delta_yaw_ok": torch.rand(NUM_ENVS) > 0.5,
            }
        }

    def step(self, actions):
        self.common_step_counter += 1
        self.obs = 0.9 * self.obs + 0.1 * torch.randn(NUM_ENVS, NUM_OBS)
        self.obs[:, :NUM_ACT] += 0.1 * actions
        if self.common_step_counter % 5 == 0:
            self.depth = torch.randn(NUM_ENVS, DEPTH)
        infos = {
            "observations": {
                "depth_camera": self.depth.clone(),
                "delta_yaw_ok": torch.rand(NUM_ENVS) > 0.5,
            }
        }
        return self.obs.clone(), None, torch.zeros(NUM_ENVS), infos


class RecurrentDepthBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.base_backbone = nn.Sequential(
            nn.Linear(DEPTH, 8), nn.ELU()
        )
        self.combination_mlp = nn.Sequential(
            nn.Linear(8 + NUM_PROP, 16), nn.ELU(), nn.Linear(16, 8)
        )
        self.recurrent_size = 16
        self.rnn = nn.GRU(
            input_size=8, hidden_size=16, batch_first=True
        )
        self.output_mlp = nn.Sequential(nn.Linear(16, 8 + 2), nn.Tanh())
        self.hidden_states = torch.zeros(1, 0, 16)

    def forward(self, depth_image, proprioception):
        if self.hidden_states.shape[1] == 0:
            self.hidden_states = torch.zeros(
                1, depth_image.shape[0], self.recurrent_size
            )
        depth_image = self.base_backbone(depth_image)
        depth_latent = self.combination_mlp(
            torch.cat((depth_image, proprioception), dim=-1)
        )
        depth_latent, self.hidden_states = self.rnn(
            depth_latent[:, None, :], self.hidden_states
        )
        depth_latent = self.output_mlp(depth_latent.squeeze(1))
        return depth_latent

    def detach_hidden_states(self):
        self.hidden_states = self.hidden_states.detach().clone()


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(NUM_OBS + 8, 32), nn.ELU(), nn.Linear(32, NUM_ACT)
        )

    def forward(self, obs, hist_encoding=True, scandots_latent=None):
        return self.net(torch.cat((obs, scandots_latent), dim=-1))


class TeacherPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.scan = nn.Parameter(torch.randn(1, 8))
        self.actor = Actor()

    def act_inference(
        self, obs, hist_encoding=True, scandots_latent=None
    ):
        return self.actor(
            obs, scandots_latent=self.scan.expand(obs.shape[0], 8)
        )


class DistillationWithExtractor:
    def __init__(self, policy, learning_rate=1e-3, max_grad_norm=1.0):
        self.policy = policy
        self.depth_encoder = RecurrentDepthBackbone()
        self.depth_actor = Actor()
        self.depth_actor.load_state_dict(policy.actor.state_dict())
        self.max_grad_norm = max_grad_norm
        self.depth_actor_optimizer = optim.Adam(
            [
                *self.depth_actor.parameters(),
                *self.depth_encoder.parameters(),
            ],
            lr=learning_rate,
        )

    def update_depth_actor(self, actions_buffer, yaws_buffer):
        depth_actor_loss = (actions_buffer).norm(p=2, dim=1).mean()
        yaw_loss = (yaws_buffer).norm(p=2, dim=1).mean()

        loss = depth_actor_loss + yaw_loss
        self.depth_actor_optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(
            self.depth_actor.parameters(), self.max_grad_norm
        )
        self.depth_actor_optimizer.step()
        return {
            "depth_actor_loss": depth_actor_loss.item(),
            "yaw_loss": yaw_loss.item(),
            "total_loss": loss.item(),
        }


class OnPolicyRunnerWithExtractor:
    def __init__(self, env):
        self.env = env
        self.alg = DistillationWithExtractor(TeacherPolicy())
        # rsl_student_ppo_cfg.py before the maintainer's fix:
        # num_steps_per_env = 24*3 (24 -> 4 here, to run fast)
        self.depth_encoder_cfg = {
            "num_steps_per_env": 4 * 3,
            "num_prop": NUM_PROP,
        }

    def learn_vision(self, num_learning_iterations):
        obs, extras = self.env.get_observations()
        additional_obs = {}
        additional_obs["delta_yaw_ok"] = extras["observations"][
            "delta_yaw_ok"
        ]
        additional_obs["depth_camera"] = extras["observations"][
            "depth_camera"
        ]
        self.alg.depth_encoder.train()
        self.alg.depth_actor.train()
        for it in range(num_learning_iterations):
            actions_buffer = []
            yaws_buffer = []
            for _ in range(self.depth_encoder_cfg["num_steps_per_env"]):
                if self.env.common_step_counter % 5 == 0:
                    obs_prop_depth = obs[
                        :, : self.depth_encoder_cfg["num_prop"]
                    ].clone()
                    obs_prop_depth[:, 6:8] = 0
                    depth_latent_and_yaw = self.alg.depth_encoder(
                        additional_obs["depth_camera"].clone(),
                        obs_prop_depth,
                    )
                    depth_latent = depth_latent_and_yaw[:, :-2]
                    yaw = 1.5 * depth_latent_and_yaw[:, -2:]
                    yaws_buffer.append(obs[:, 6:8].detach() - yaw)
                with torch.no_grad():
                    actions_teacher = self.alg.policy.act_inference(
                        obs, hist_encoding=True, scandots_latent=None
                    )
                obs[additional_obs["delta_yaw_ok"], 6:8] = yaw.detach()[
                    additional_obs["delta_yaw_ok"]
                ]
                actions_student = self.alg.depth_actor(
                    obs,
                    hist_encoding=True,
                    scandots_latent=depth_latent,
                )
                actions_buffer.append(
                    actions_teacher.detach() - actions_student
                )
                obs, _, dones, infos = self.env.step(
                    actions_student.detach()
                )
                additional_obs["delta_yaw_ok"] = infos["observations"][
                    "delta_yaw_ok"
                ]
                additional_obs["depth_camera"] = infos["observations"][
                    "depth_camera"
                ]
            actions_buffer = torch.cat(actions_buffer, dim=0)
            yaws_buffer = torch.cat(yaws_buffer, dim=0)
            loss_dict = self.alg.update_depth_actor(
                actions_buffer, yaws_buffer
            )
            self.alg.depth_encoder.detach_hidden_states()
            print(
                f"it {it}: step counter "
                f"{self.env.common_step_counter}, "
                "depth_actor_loss "
                f"{loss_dict['depth_actor_loss']:.3f}, "
                f"yaw_loss {loss_dict['yaw_loss']:.3f}"
            )


runner = OnPolicyRunnerWithExtractor(FakeParkourEnv())
runner.learn_vision(num_learning_iterations=2)
